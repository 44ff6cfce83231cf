#include "report/table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"

namespace strata::report {
namespace {

TEST(Table, WidthsAdaptToTheWidestCellAndAlign) {
  Table t({{"name", Align::kLeft}, {"ms"}, {"note", Align::kLeft}});
  t.add_row({"conv", "12.500", "x"});
  t.add_row({"a_much_longer_name", "0.1"});
  EXPECT_EQ(t.render(),
            "name                    ms  note\n"
            "------------------  ------  ----\n"
            "conv                12.500  x\n"
            "a_much_longer_name     0.1\n");
  EXPECT_EQ(t.rows(), 2u);
}

TEST(Table, CountsCodePointsNotBytes) {
  EXPECT_EQ(text_width("a → b"), 5u);
  EXPECT_EQ(text_width("≥"), 1u);
  Table t({{"x", Align::kLeft}, {"y"}});
  t.add_row({"→", "1"});
  t.add_row({"ab", "2"});
  EXPECT_EQ(t.render(), "x   y\n--  -\n→   1\nab  2\n");
}

TEST(Table, TooManyCellsIsABug) {
  Table t({{"only"}});
  EXPECT_THROW(t.add_row({"1", "2"}), Error);
}

// A node table's shape: rank-0 "#" and "node" always stay; "node" shortens.
std::vector<Column> fitting_columns() {
  return {{"#"},
          {"node", Align::kLeft, 0, true},
          {"type", Align::kLeft, 1},
          {"median", Align::kRight, 1},
          {"total ms", Align::kRight, 2},
          {"kernel", Align::kLeft, 5},
          {"shapes", Align::kLeft, 9}};
}

size_t fitted_width(const ColumnFit& f) {
  size_t total = 0, shown = 0;
  for (size_t c = 0; c < f.shown.size(); ++c)
    if (f.shown[c]) total += f.widths[c], ++shown;
  return total + 2 * (shown - 1);
}

TEST(FitColumns, NoWidthKeepsEveryColumnAsItIs) {
  const std::vector<size_t> widths = {2, 60, 10, 6, 8, 30, 90};
  const ColumnFit f = fit_columns(fitting_columns(), widths, {});
  EXPECT_EQ(f.shown, std::vector<bool>(7, true));
  EXPECT_EQ(f.widths, widths);
  EXPECT_TRUE(f.dropped.empty());
}

TEST(FitColumns, DropsTheHighestRanksFirstAndGivesTheRoomToNames) {
  const std::vector<size_t> widths = {2, 60, 10, 6, 8, 30, 90};
  const ColumnFit f = fit_columns(fitting_columns(), widths, {80, {}});
  // shapes (9) then kernel (5) go; # node type median total ms stay, the name takes what is left.
  EXPECT_EQ(f.shown, (std::vector<bool>{true, true, true, true, true, false, false}));
  EXPECT_EQ(f.dropped, (std::vector<std::string>{"kernel", "shapes"}));
  EXPECT_EQ(fitted_width(f), 80u);
  EXPECT_EQ(f.widths[1], 80u - (2 + 10 + 6 + 8) - 4 * 2);
}

TEST(FitColumns, AWideEnoughWidthChangesNothing) {
  const std::vector<size_t> widths = {2, 20, 10, 6, 8, 10, 10};
  const ColumnFit f = fit_columns(fitting_columns(), widths, {200, {}});
  EXPECT_EQ(f.widths, widths);
  EXPECT_TRUE(f.dropped.empty());
}

TEST(FitColumns, RightmostOfEqualRanksGoesFirst) {
  const std::vector<size_t> widths = {2, 12, 10, 6, 8, 1, 1};
  // shapes, kernel, then total ms (rank 2) go: 2+12+10+6 + 3 gaps = 36 is still over 30, so of
  // type and median (both rank 1) the rightmost, median, goes.
  const ColumnFit f = fit_columns(fitting_columns(), widths, {30, {}});
  EXPECT_EQ(f.shown, (std::vector<bool>{true, true, true, false, false, false, false}));
  EXPECT_EQ(f.dropped, (std::vector<std::string>{"median", "total_ms", "kernel", "shapes"}));
}

TEST(FitColumns, NamesNeverShortenBelowTheMinimum) {
  const std::vector<size_t> widths = {2, 60, 10, 6, 8, 30, 90};
  const ColumnFit f = fit_columns(fitting_columns(), widths, {10, {}});
  EXPECT_EQ(f.widths[1], kMinShortenedWidth);
  EXPECT_TRUE(f.shown[0] && f.shown[1]);
}

TEST(FitColumns, ColumnsOptionPicksBesideTheEssentialOnes) {
  const std::vector<size_t> widths = {2, 20, 10, 6, 8, 30, 90};
  const ColumnFit f = fit_columns(fitting_columns(), widths, {0, {"kernel", "total_ms"}});
  EXPECT_EQ(f.shown, (std::vector<bool>{true, true, false, false, true, true, false}));
  EXPECT_TRUE(f.dropped.empty());  // left out by choice, not to fit
}

TEST(ColumnKey, LowerCaseWithUnderscores) {
  EXPECT_EQ(column_key("total ms"), "total_ms");
  EXPECT_EQ(column_key("GFLOP/s"), "gflop/s");
  EXPECT_EQ(column_key("%total"), "%total");
}

TEST(ColumnKey, AColumnsOwnKeyWinsAndUnknownNamesFail) {
  const std::vector<Column> columns = {{"node", Align::kLeft},
                                       {"Δ ms", Align::kRight, 1, false, "delta_ms"}};
  EXPECT_EQ(column_key(columns[0]), "node");
  EXPECT_EQ(column_key(columns[1]), "delta_ms");
  EXPECT_NO_THROW(check_column_names({"delta_ms"}, {columns}));
  try {
    check_column_names({"delta_ms", "bogus"}, {columns, {{"other"}}});
    FAIL() << "no error for an unknown column";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'bogus' (the columns are node, delta_ms, other)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ShortenMiddle, KeepsTheEndAndTheStartCuttingAtSlashes) {
  const std::string name = "/encoder/layer.0/attention/self/MatMul_3";
  EXPECT_EQ(shorten_middle(name, 100), name);
  EXPECT_EQ(shorten_middle(name, name.size()), name);
  EXPECT_EQ(shorten_middle(name, 24), "/encoder/…/self/MatMul_3");
  EXPECT_EQ(shorten_middle(name, 35), "/encoder/…/attention/self/MatMul_3");  // 34: whole parts
  EXPECT_EQ(shorten_middle(name, 12), "/enc…atMul_3");  // no slash near the cuts
  EXPECT_EQ(shorten_middle("abcdefghijklmnop", 8), "ab…lmnop");
  EXPECT_EQ(shorten_middle("→→→→→→→→→→", 5), "→…→→→");  // code points, not bytes
  for (size_t width = 1; width < name.size(); ++width) {
    const std::string s = shorten_middle(name, width);
    EXPECT_LE(text_width(s), width) << s;
    EXPECT_NE(s.find("…"), std::string::npos) << s;
    if (width >= 9) {
      EXPECT_EQ(s.substr(s.size() - 3), "l_3") << s;  // never the end
    }
  }
}

TEST(WrapText, BreaksAtSpacesWithinTheWidth) {
  EXPECT_EQ(wrap_text("one two three four", 9, " "), "one two\n three\n four\n");
  EXPECT_EQ(wrap_text("a b", 80), "a b\n");
  EXPECT_EQ(wrap_text("one two", 0), "one two\n");
}

TEST(Table, FittedRenderShortensNamesDropsColumnsAndSaysWhich) {
  Table t({{"node", Align::kLeft, 0, true}, {"ms"}, {"kernel", Align::kLeft, 3}});
  t.add_row({"/encoder/layer.0/attention/self/MatMul_3", "1.5", "onednn:gemm:jit"});
  const std::string out = t.render({40, {}});
  EXPECT_EQ(out,
            "node                                  ms\n"
            "-----------------------------------  ---\n"
            "/encoder/…/attention/self/MatMul_3   1.5\n"
            "1 column not shown to fit 40 columns:\n"
            "  kernel; --wide shows all, --columns\n"
            "  LIST picks\n");
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(text_width(line), 40u) << line;
}

}  // namespace
}  // namespace strata::report
