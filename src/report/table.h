// Plain aligned text tables: every view of a profile renders through this writer, so all tables
// look alike. Column widths adapt to the widest cell. On a terminal a table can be fitted to its
// width: the least important columns are left out (and named in a note), long names are shortened
// in the middle.
#pragma once

#include <string>
#include <vector>

#include "strata/table.h"

namespace strata::report {

// The public text tables (include/strata/table.h) are the report layer's own.
using strata::Align;
using strata::Column;
using strata::FitOptions;
using strata::Table;
using strata::text_width;

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

// Fails (exit 2) naming a --columns name that none of `tables` has (public: strata/table.h).
using strata::check_column_names;

// `text` cut to `width` code points by replacing its middle with "…", keeping more of the end
// (a node's own name) than of the start: "/encoder/…/attention/MatMul_3".
std::string shorten_middle(const std::string& text, size_t width);

// `text` wrapped at spaces into lines of at most `width` code points (0: one line), each ending
// in a newline; lines after the first start with `indent`.
std::string wrap_text(const std::string& text, size_t width, const std::string& indent = "  ");

}  // namespace strata::report
