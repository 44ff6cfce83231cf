#include "report/node_figures.h"

#include <gtest/gtest.h>

#include "report/profile_json.h"
#include "testutil/test_files.h"

namespace strata::report {
namespace {

using test::kSmallProfile;

// The machine of small_profile.json: 100 GFLOP/s and 20 GB/s, a balance of 5 FLOP per byte.
const profiler::MachineInfo kMachine = {"Test CPU 9000", 4, 100, 20, "test", "avx2+fma", 0, ""};

profiler::NodeProfile node(double flops, double read, double written, std::vector<double> samples) {
  profiler::NodeProfile n;
  n.has_cost = true;
  n.flops = flops;
  n.bytes_read = read;
  n.bytes_written = written;
  n.samples_ms = std::move(samples);
  return n;
}

TEST(NodeFigures, ComputeBoundAboveTheMachineBalance) {
  // 1e9 FLOPs over 1e8 bytes (10 FLOP/B ≥ 5) in a median of 20 ms: 50 GFLOP/s, half the peak.
  const NodeFigures f = node_figures(node(1e9, 6e7, 4e7, {30, 20, 10}), kMachine);
  EXPECT_DOUBLE_EQ(f.time.median, 20);
  EXPECT_DOUBLE_EQ(f.total_ms, 60);
  EXPECT_DOUBLE_EQ(f.bytes, 1e8);
  EXPECT_DOUBLE_EQ(f.gflops, 50);
  EXPECT_DOUBLE_EQ(f.gbps, 5);
  EXPECT_EQ(f.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(f.pct_of_peak, 50);
}

TEST(NodeFigures, MemoryBoundBelowTheMachineBalance) {
  // 1e8 FLOPs over 1e8 bytes (1 FLOP/B < 5) in 10 ms: 10 GB/s, half the bandwidth.
  const NodeFigures f = node_figures(node(1e8, 5e7, 5e7, {10}), kMachine);
  EXPECT_EQ(f.bound, Bound::kMemory);
  EXPECT_DOUBLE_EQ(f.gbps, 10);
  EXPECT_DOUBLE_EQ(f.pct_of_peak, 50);
  // Pure data movement is memory-bound too.
  EXPECT_EQ(node_figures(node(0, 100, 100, {1}), kMachine).bound, Bound::kMemory);
}

TEST(NodeFigures, IntegerProductsAgainstTheInt8Peak) {
  profiler::MachineInfo machine = kMachine;
  machine.peak_int8_gops = 400;                            // a balance of 20 operations per byte
  profiler::NodeProfile conv = node(1e9, 6e7, 4e7, {20});  // 10 OP/B, 50 GOP/s
  conv.op_type = "QLinearConv";
  NodeFigures f = node_figures(conv, machine);
  EXPECT_EQ(f.bound, Bound::kMemory);   // below the int8 balance, above the FP32 one
  EXPECT_DOUBLE_EQ(f.pct_of_peak, 25);  // 5 GB/s of 20
  conv = node(4e9, 6e7, 4e7, {20});     // 40 OP/B, 200 GOP/s
  conv.op_type = "MatMulInteger";
  f = node_figures(conv, machine);
  EXPECT_EQ(f.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(f.pct_of_peak, 50);  // of 400, not of FP32's 100
  machine.peak_int8_gops = 0;           // unknown int8 peak (an old profile): no roofline for it
  EXPECT_EQ(node_figures(conv, machine).bound, Bound::kUnknown);
  EXPECT_TRUE(is_int8_product("ConvInteger"));
  EXPECT_FALSE(is_int8_product("Conv"));
}

TEST(NodeFigures, UnknownWithoutCostPeaksOrTime) {
  profiler::NodeProfile no_cost = node(0, 0, 0, {1});
  no_cost.has_cost = false;
  const NodeFigures f = node_figures(no_cost, kMachine);
  EXPECT_EQ(f.gflops, -1);
  EXPECT_EQ(f.bound, Bound::kUnknown);
  EXPECT_EQ(f.pct_of_peak, -1);
  const NodeFigures no_peaks = node_figures(node(1e9, 1, 1, {1}), profiler::MachineInfo{});
  EXPECT_DOUBLE_EQ(no_peaks.gflops, 1000);
  EXPECT_EQ(no_peaks.bound, Bound::kUnknown);
  EXPECT_EQ(node_figures(node(1e9, 1, 1, {}), kMachine).gflops, -1);
  EXPECT_STREQ(bound_name(Bound::kUnknown), "-");
}

TEST(RunFigures, PartsAndWholeOfTheSmallProfile) {
  const RunFigures r = run_figures(read_profile(kSmallProfile));
  EXPECT_NEAR(r.latency.median, 10.05, 1e-12);
  EXPECT_NEAR(r.unprofiled.median, 9.9, 1e-12);
  EXPECT_NEAR(r.total_ms, 60.5, 1e-12);
  EXPECT_NEAR(r.throughput_per_s, 1000 / 10.05, 1e-9);
  // 4.0 + 0.5 + 3.05 + 0.4 + 0.6 + 0.05 + 1.0: the user scope "preprocess" is not a part.
  EXPECT_NEAR(r.sum_node_medians_ms, 9.6, 1e-12);
  EXPECT_NEAR(r.outside_operators_ms, 0.45, 1e-12);
  EXPECT_NEAR(r.first_vs_median, 15 / 10.05, 1e-12);
}

}  // namespace
}  // namespace strata::report
