#include "core/layout.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(Layout, BlockedLayoutsAreNamedByTheirBlock) {
  EXPECT_EQ(layout_name(Layout::kBlocked16, 4), "nChw16c");
  EXPECT_EQ(layout_name(Layout::kBlocked8, 4), "nChw8c");
  EXPECT_EQ(layout_name(Layout::kBlocked8, 3), "nCw8c");
  EXPECT_EQ(layout_name(Layout::kBlocked8, 5), "nCdhw8c");
  EXPECT_EQ(layout_name(Layout::kChannelsLast, 4), "nhwc");
  EXPECT_EQ(channel_block(Layout::kBlocked16), 16);
  EXPECT_EQ(channel_block(Layout::kBlocked8), 8);
  EXPECT_EQ(channel_block(Layout::kChannelsLast), 1);
}

TEST(Layout, BlockedLayoutsPadTheChannelsToTheirBlock) {
  // 20 channels: two blocks of 16 (32 channels' room) or three of 8 (24).
  EXPECT_EQ(layout_bytes(DType::kF32, {1, 20, 3, 3}, Layout::kBlocked16), 32 * 9 * 4);
  EXPECT_EQ(layout_bytes(DType::kF32, {1, 20, 3, 3}, Layout::kBlocked8), 24 * 9 * 4);
  EXPECT_EQ(layout_bytes(DType::kF32, {1, 20, 3, 3}, Layout::kChannelsLast), 20 * 9 * 4);
  EXPECT_EQ(layout_bytes(DType::kF32, {2, 16, 1, 1}, Layout::kBlocked8), 2 * 16 * 4);
}

TEST(Layout, OneSpatialPositionOfWholeBlocksIsOrderedAsPlain) {
  EXPECT_TRUE(same_memory_order({1, 24, 1, 1}, Layout::kBlocked8, Layout::kPlain));
  EXPECT_FALSE(same_memory_order({1, 24, 1, 1}, Layout::kBlocked16, Layout::kPlain));
  EXPECT_FALSE(same_memory_order({1, 20, 1, 1}, Layout::kBlocked8, Layout::kChannelsLast));
  EXPECT_FALSE(same_memory_order({1, 16, 2, 1}, Layout::kBlocked8, Layout::kPlain));
  EXPECT_TRUE(same_memory_order({1, 32, 1, 1}, Layout::kBlocked8, Layout::kBlocked16));
}

}  // namespace
}  // namespace strata
