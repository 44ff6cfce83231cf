// strata/table.h's check_column_names and strata/views.h's fit_options.
#include <gtest/gtest.h>
#include <strata/table.h>
#include <strata/views.h>

#include "api/error_of.h"

namespace strata {
namespace {

TEST(TableApi, ColumnNamesAreCheckedAgainstEveryTable) {
  const std::vector<Column> a = {{"threads"}, {"GB/s triad"}};
  const std::vector<Column> b = {{"isa", Align::kLeft}, {"x", Align::kRight, 0, false, "ex"}};
  check_column_names({"threads", "isa", "ex", "gb/s_triad"}, {a, b});
  EXPECT_EQ(error_of([&] {
              check_column_names({"isa", "cores"}, {a, b});
            }),
            "--columns: no table has a column 'cores' (the columns are threads, gb/s_triad, isa, "
            "ex)");
}

TEST(TableApi, FitOptionsFollowWideAndColumns) {
  ViewOptions view;
  view.width = 100;
  view.columns = {"median"};
  FitOptions fit = fit_options(view);
  EXPECT_EQ(fit.width, 100u);
  EXPECT_EQ(fit.columns, view.columns);
  view.wide = true;
  fit = fit_options(view);
  EXPECT_EQ(fit.width, 0u);  // every column
}

}  // namespace
}  // namespace strata
