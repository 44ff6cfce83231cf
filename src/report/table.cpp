#include "report/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/error.h"

namespace strata::report {

namespace {
constexpr const char* kGap = "  ";
constexpr size_t kGapWidth = 2;

std::string pad(const std::string& text, size_t width, Align align) {
  const size_t w = text_width(text);
  if (w >= width) return text;
  const std::string fill(width - w, ' ');
  return align == Align::kLeft ? text + fill : fill + text;
}

std::string trim_right(std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

// Byte offset of code point `n` of UTF-8 `text` (text.size() past the end).
size_t byte_offset(const std::string& text, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && count++ == n) return i;
  return text.size();
}

size_t total_width(const std::vector<bool>& shown, const std::vector<size_t>& widths) {
  size_t total = 0, count = 0;
  for (size_t c = 0; c < shown.size(); ++c)
    if (shown[c]) total += widths[c], ++count;
  return total + (count > 0 ? (count - 1) * kGapWidth : 0);
}
}  // namespace

}  // namespace strata::report

namespace strata {
size_t text_width(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;  // count bytes that start a code point
  return width;
}

}  // namespace strata

namespace strata::report {

std::string column_key(const std::string& header) {
  std::string key;
  for (char c : header) key += c == ' ' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

std::string column_key(const Column& column) {
  return column.key.empty() ? column_key(column.header) : column.key;
}

std::string shorten_middle(const std::string& text, size_t width) {
  const size_t w = text_width(text);
  if (w <= width) return text;
  if (width == 0) return "";
  // In code points: keep [0, head) and [tail_start, w); cut next to a path's '/' when that
  // loses at most half of a part.
  std::vector<std::string> points;
  for (size_t i = 0; i < w; ++i) {
    const size_t from = byte_offset(text, i);
    points.push_back(text.substr(from, byte_offset(text, i + 1) - from));
  }
  size_t head = (width - 1) * 2 / 5;  // one for "…"; more of the end than of the start
  for (size_t i = head; i > 1 && i >= head / 2; --i)
    if (points[i - 1] == "/") {
      head = i;  // "/encoder/"
      break;
    }
  const size_t tail = width - 1 - head;
  size_t tail_start = w - tail;
  for (size_t i = tail_start; i + 1 < w && i <= w - tail + tail / 2; ++i)
    if (points[i] == "/") {
      tail_start = i;  // "/self/MatMul_3"
      break;
    }
  std::string out;
  for (size_t i = 0; i < head; ++i) out += points[i];
  out += "…";
  for (size_t i = tail_start; i < w; ++i) out += points[i];
  return out;
}

std::string wrap_text(const std::string& text, size_t width, const std::string& indent) {
  if (width == 0) return text + "\n";
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && text_width(line) + 1 + text_width(word) > width) {
      out += line + "\n";
      line = indent;
    }
    line += (line.empty() || line == indent ? "" : " ") + word;
  }
  return out + line + "\n";
}

ColumnFit fit_columns(const std::vector<Column>& columns, const std::vector<size_t>& widths,
                      const FitOptions& fit) {
  ColumnFit f;
  f.widths = widths;
  f.shown.resize(columns.size());
  for (size_t c = 0; c < columns.size(); ++c)
    f.shown[c] = fit.columns.empty() || columns[c].rank == 0 ||
                 std::find(fit.columns.begin(), fit.columns.end(), column_key(columns[c])) !=
                     fit.columns.end();
  if (fit.width == 0 || total_width(f.shown, f.widths) <= fit.width) return f;

  for (size_t c = 0; c < columns.size(); ++c)
    if (columns[c].shortens)
      f.widths[c] = std::min(widths[c], std::max(kShortenedWidth, text_width(columns[c].header)));
  std::vector<bool> dropped(columns.size(), false);
  while (total_width(f.shown, f.widths) > fit.width) {
    size_t victim = columns.size();
    for (size_t c = 0; c < columns.size(); ++c)
      if (f.shown[c] && columns[c].rank > 0 &&
          (victim == columns.size() || columns[c].rank >= columns[victim].rank))
        victim = c;
    if (victim == columns.size()) break;  // only the essential columns are left
    f.shown[victim] = false;
    dropped[victim] = true;
  }
  // The room left (or missing) goes to the shortening columns, within their natural widths.
  for (size_t c = 0; c < columns.size(); ++c) {
    if (!f.shown[c] || !columns[c].shortens) continue;
    const size_t others = total_width(f.shown, f.widths) - f.widths[c];
    const size_t room = fit.width > others ? fit.width - others : 0;
    f.widths[c] = std::clamp(room, std::min(kMinShortenedWidth, widths[c]), widths[c]);
  }
  for (size_t c = 0; c < columns.size(); ++c)
    if (dropped[c]) f.dropped.push_back(column_key(columns[c]));
  return f;
}

}  // namespace strata::report

// Declared in include/strata/table.h.
namespace strata {

using report::ColumnFit;
using report::kGap;
using report::pad;
using report::shorten_middle;
using report::trim_right;
using report::wrap_text;

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size())
    fail_internal("table row has {} cells for {} columns", cells.size(), columns_.size());
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render(const FitOptions& fit) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = text_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], text_width(row[c]));
  }
  const ColumnFit f = report::fit_columns(columns_, widths, fit);
  auto line = [&](auto cell_of) {
    std::string out;
    bool first = true;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (!f.shown[c]) continue;
      std::string cell = cell_of(c);
      if (columns_[c].shortens) cell = shorten_middle(cell, f.widths[c]);
      out += (first ? "" : kGap) + pad(cell, f.widths[c], columns_[c].align);
      first = false;
    }
    return trim_right(out) + "\n";
  };
  std::string out = line([&](size_t c) { return columns_[c].header; });
  out += line([&](size_t c) { return std::string(f.widths[c], '-'); });
  for (const auto& row : rows_) out += line([&](size_t c) { return row[c]; });
  if (f.dropped.empty()) return out;
  std::string names;
  for (const std::string& key : f.dropped) names += (names.empty() ? "" : ", ") + key;
  return out +
         wrap_text(fmt::format("{} column{} not shown to fit {} columns: {}; {}", f.dropped.size(),
                               f.dropped.size() == 1 ? "" : "s", fit.width, names, fit.hint),
                   fit.width, "  ");
}

void check_column_names(const std::vector<std::string>& names,
                        const std::vector<std::vector<Column>>& tables) {
  std::vector<std::string> known;
  for (const std::vector<Column>& columns : tables)
    for (const Column& c : columns)
      if (std::find(known.begin(), known.end(), report::column_key(c)) == known.end())
        known.push_back(report::column_key(c));
  for (const std::string& name : names)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      fail("--columns: no table has a column '{}' (the columns are {})", name, list);
    }
}

}  // namespace strata
