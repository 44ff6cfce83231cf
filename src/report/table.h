// Plain aligned text tables: every view of a profile renders through this writer, so all tables
// look alike. Column widths adapt to the widest cell.
#pragma once

#include <string>
#include <vector>

namespace strata::report {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kRight;
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // A row has one cell per column; missing trailing cells are empty.
  void add_row(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }
  // The cells as given, for views other than text (the HTML report shows the same tables).
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& cells() const { return rows_; }

  // Header, a rule of dashes, then the rows; columns two spaces apart, no trailing spaces.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; enough for the arrows and names strata prints).
size_t text_width(const std::string& text);

}  // namespace strata::report
