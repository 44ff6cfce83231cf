#include "report/table.h"

#include <algorithm>

#include "core/error.h"

namespace strata::report {

namespace {
constexpr const char* kGap = "  ";

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
}  // namespace

size_t text_width(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;  // count bytes that start a code point
  return width;
}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size())
    fail_internal("table row has {} cells for {} columns", cells.size(), columns_.size());
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = text_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], text_width(row[c]));
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (size_t c = 0; c < columns_.size(); ++c)
      out += (c ? kGap : "") + pad(cell_of(c), widths[c], columns_[c].align);
    return trim_right(out) + "\n";
  };
  std::string out = line([&](size_t c) { return columns_[c].header; });
  out += line([&](size_t c) { return std::string(widths[c], '-'); });
  for (const auto& row : rows_) out += line([&](size_t c) { return row[c]; });
  return out;
}

}  // namespace strata::report
