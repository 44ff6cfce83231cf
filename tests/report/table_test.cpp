#include "report/table.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace strata::report
