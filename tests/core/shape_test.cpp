#include "core/shape.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace strata {
namespace {

TEST(Dim, SymbolsWithTheSameNameAreEqual) {
  const std::string name = "batch";
  EXPECT_EQ(Dim::symbol(name), Dim::symbol("batch"));
  EXPECT_FALSE(Dim::symbol("batch") == Dim::symbol("seq"));
  EXPECT_FALSE(Dim::symbol("batch") == Dim(0));
  EXPECT_EQ(Dim::symbol("batch").symbol(), "batch");
  EXPECT_FALSE(Dim::symbol("batch").is_static());
  EXPECT_THROW(Dim::symbol("batch").value(), NotStatic);
}

TEST(Dim, StaticDimsHaveNoSymbol) {
  EXPECT_TRUE(Dim(3).is_static());
  EXPECT_EQ(Dim(3).symbol(), "");
  EXPECT_EQ(Dim(3), Dim(3));
  EXPECT_FALSE(Dim(3) == Dim(4));
  EXPECT_TRUE(Dim::symbol("").is_static());  // an empty name is no symbol
}

TEST(Dim, UnknownDimsAreDistinct) {
  const Dim a = Dim::unknown(), b = Dim::unknown();
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.symbol()[0], '?');
}

TEST(Dim, ArithmeticOnSymbolsBuildsExpressions) {
  const Dim n = Dim::symbol("N");
  EXPECT_EQ((n * 3).str(), "(N*3)");
  EXPECT_EQ(n * 3, n * Dim(3));  // the same expression, interned once
  EXPECT_EQ((n + 0), n);
  EXPECT_EQ((Dim(6) * 7).value(), 42);
}

Shape ramp(int64_t rank) {
  Shape s;
  for (int64_t d = 0; d < rank; ++d) s.push_back(d + 1);
  return s;
}

TEST(Shape, GrowsBeyondTheInlineRank) {
  const int64_t rank = int64_t(Shape::kInlineRank) + 3;
  Shape s = ramp(rank);
  ASSERT_EQ(s.rank(), rank);
  for (int64_t d = 0; d < rank; ++d) EXPECT_EQ(s[d].value(), d + 1);
  EXPECT_EQ(s.str(), "[1,2,3,4,5,6,7,8,9]");
}

TEST(Shape, CopiesAndMovesKeepTheDims) {
  for (int64_t rank : {int64_t(2), int64_t(Shape::kInlineRank) + 2}) {
    Shape a = ramp(rank);
    const Shape copy = a;
    EXPECT_EQ(copy, a);
    Shape moved = std::move(a);
    EXPECT_EQ(moved, copy);
    EXPECT_EQ(a.rank(), 0);  // NOLINT: a moved-from shape is empty
    a = moved;               // usable again
    EXPECT_EQ(a, copy);
    Shape small = ramp(1);
    small = std::move(moved);
    EXPECT_EQ(small, copy);
  }
}

TEST(Shape, InsertsAtAnyPosition) {
  Shape s{2, 3};
  s.insert(0, 1);
  s.insert(3, 4);
  s.insert(2, Dim::symbol("N"));
  EXPECT_EQ(s.str(), "[1,2,N,3,4]");
  Shape big = ramp(int64_t(Shape::kInlineRank));
  big.insert(1, 0);
  EXPECT_EQ(big.str(), "[1,0,2,3,4,5,6]");
}

TEST(Shape, ComparesRankAndDims) {
  EXPECT_EQ(Shape::of({1, 2}), (Shape{1, 2}));
  EXPECT_FALSE(Shape::of({1, 2}) == Shape::of({1, 2, 1}));
  EXPECT_FALSE(Shape::of({1, 2}) == (Shape{1, Dim::symbol("N")}));
  EXPECT_EQ(Shape(Shape::of({4, 5, 6}).dims().subspan(1)), Shape::of({5, 6}));
}

}  // namespace
}  // namespace strata
