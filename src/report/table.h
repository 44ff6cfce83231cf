// Plain aligned text tables: every view of a profile renders through this writer, so all tables
// look alike. Column widths adapt to the widest cell. On a terminal a table can be fitted to its
// width: the least important columns are left out (and named in a note), long names are shortened
// in the middle.
#pragma once

#include <string>
#include <vector>

namespace strata::report {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kRight;
  // Importance when the table must fit a width: rank 0 always stays, then 1, 2, ...; the highest
  // ranks are left out first.
  int rank = 0;
  // Long cells (node names, scopes) are shortened in the middle to fit, not left out.
  bool shortens = false;
  // The name --columns knows it by; empty: column_key(header).
  std::string key{};
};

struct FitOptions {
  size_t width = 0;                  // 0: no limit, every column (files and pipes)
  std::vector<std::string> columns;  // show only these (by column_key) and the rank-0 ones
  // How to see what was left out, in the note under a fitted table.
  std::string hint = "--wide shows all, --columns LIST picks";
};

// What a table shows after fitting: per column whether it is shown and at what width, and the
// columns left out to fit the width (not those left out by FitOptions::columns).
struct ColumnFit {
  std::vector<bool> shown;
  std::vector<size_t> widths;
  std::vector<std::string> dropped;  // keys, in table order
};

// Fits columns of natural widths `widths` (the widest cell of each) into fit.width with two spaces
// between columns: shortening columns are first capped, then columns are left out from the
// highest rank down (rightmost first among equals), then the shortening columns take what room
// is left (at least kMinShortenedWidth).
ColumnFit fit_columns(const std::vector<Column>& columns, const std::vector<size_t>& widths,
                      const FitOptions& fit);
inline constexpr size_t kShortenedWidth = 32;     // a shortening column's cap before dropping
inline constexpr size_t kMinShortenedWidth = 12;  // never shorter than this

// The name users give --columns for a header: lower case, '_' for spaces ("total ms" → total_ms).
std::string column_key(const std::string& header);
// The --columns name of `column`: its key, else column_key of its header.
std::string column_key(const Column& column);

// Fails (exit 2) naming a --columns name that none of `tables` has, with the names there are.
void check_column_names(const std::vector<std::string>& names,
                        const std::vector<std::vector<Column>>& tables);

// `text` cut to `width` code points by replacing its middle with "…", keeping more of the end
// (a node's own name) than of the start: "/encoder/…/attention/MatMul_3".
std::string shorten_middle(const std::string& text, size_t width);

// `text` wrapped at spaces into lines of at most `width` code points (0: one line), each ending
// in a newline; lines after the first start with `indent`.
std::string wrap_text(const std::string& text, size_t width, const std::string& indent = "  ");

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // A row has one cell per column; missing trailing cells are empty.
  void add_row(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }
  // The cells as given, for views other than text (the HTML report shows the same tables).
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& cells() const { return rows_; }

  // Header, a rule of dashes, then the rows; columns two spaces apart, no trailing spaces. With a
  // width, only what fits (fit_columns), then a note naming the columns left out and how to see
  // them.
  std::string render(const FitOptions& fit = {}) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; enough for the arrows and names strata prints).
size_t text_width(const std::string& text);

}  // namespace strata::report
