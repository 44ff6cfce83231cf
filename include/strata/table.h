// The aligned text tables strata prints (every view of a profile, `strata machine`...), for tools
// that print beside them. Column widths adapt to the widest cell; on a terminal a table can be
// fitted to its width (strata::terminal_width): the least important columns are left out and
// named in a note, long names are shortened in the middle.
//
//   strata::Table table({{"node", strata::Align::kLeft}, {"ms"}});
//   table.add_row({"/stem/Conv", "0.071"});
//   std::fputs(table.render().c_str(), stdout);
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace strata {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kRight;
  // Importance when the table must fit a width: rank 0 always stays, then 1, 2, ...; the highest
  // ranks are left out first.
  int rank = 0;
  // Long cells (node names, scopes) are shortened in the middle to fit, not left out.
  bool shortens = false;
  // The name FitOptions::columns (--columns) knows it by; empty: its header in lower case with
  // '_' for spaces ("total ms" → total_ms).
  std::string key{};
};

struct FitOptions {
  size_t width = 0;                  // 0: no limit, every column (files and pipes)
  std::vector<std::string> columns;  // show only these (by column_key) and the rank-0 ones
  // How to see what was left out, in the note under a fitted table.
  std::string hint = "--wide shows all, --columns LIST picks";
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

  // Header, a rule of dashes, then the rows; columns two spaces apart, no trailing spaces. With a
  // width, only what fits (the highest ranks are left out first), then a note naming the columns
  // left out and how to see them.
  std::string render(const FitOptions& fit = {}) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Throws strata::Error naming a FitOptions::columns (--columns) name that none of `tables` has,
// with the names there are: a table that would silently show nothing is a mistake.
void check_column_names(const std::vector<std::string>& names,
                        const std::vector<std::vector<Column>>& tables);

// A byte count for people: "512 B", "1.5 KiB", "12.0 MiB" (the figures strata prints).
std::string human_bytes(double bytes);

// Display width of UTF-8 text (code points; enough for the arrows and names strata prints).
size_t text_width(const std::string& text);

}  // namespace strata
