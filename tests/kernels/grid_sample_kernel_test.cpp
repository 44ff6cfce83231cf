// strata's GridSample kernel (src/kernels/cpu/grid_sample.cpp) against the reference kernel:
// random image and grid sizes (odd ones, points past the 16-lane tail), bilinear and nearest,
// zeros and border padding, both align_corners, locations well outside the image, one and two
// threads, AVX-512 and portable loops; and the reasons it declines.
#include <gtest/gtest.h>

#include <optional>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

ir::Graph grid_sample_graph(const std::vector<int64_t>& x, const std::vector<int64_t>& grid,
                            const std::string& mode, const std::string& padding, int64_t align) {
  GraphBuilder g(20);
  g.input("x", x);
  g.input("grid", grid);
  ir::Node& n = g.node("GridSample", {"x", "grid"}, {"y"});
  n.attributes["mode"] = attr_string(mode);
  n.attributes["padding_mode"] = attr_string(padding);
  n.attributes["align_corners"] = attr_int(align);
  g.output("y");
  return g.build();
}

TEST(GridSampleKernel, RandomShapesAndModesMatchTheReference) {
  std::mt19937 rng(91);
  for (int i = 0; i < 32; ++i) {
    const std::string mode = i % 2 ? "nearest" : "linear";
    const std::string padding = (i / 2) % 2 ? "border" : "zeros";
    const int64_t align = (i / 4) % 2;
    const int threads = 1 + (i / 8) % 2;
    std::optional<PortableLoops> portable;  // every third shape: the portable loops
    if (i % 3 == 2) portable.emplace();
    const std::vector<int64_t> x = {random_int(rng, 1, 2), random_int(rng, 1, 5),
                                    random_int(rng, 1, 13), random_int(rng, 1, 13)};
    const std::vector<int64_t> grid = {x[0], random_int(rng, 1, 9), random_int(rng, 1, 23), 2};
    SCOPED_TRACE(testing::Message()
                 << mode << " " << padding << " align " << align << " X " << Shape::of(x).str()
                 << " grid " << Shape::of(grid).str() << " threads " << threads);
    Tensor locations = random_tensor(rng, grid);
    for (int64_t k = 0; k < locations.numel(); ++k) locations.data<float>()[k] *= 1.3f;  // outside
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        grid_sample_graph(x, grid, mode, padding, align), {random_tensor(rng, x), locations},
        kernels::LayoutPolicy::kAuto, 1e-4, threads);
    EXPECT_EQ(steps[0].kernel, std::string("strata:grid_sample") +
                                   (portable || !kernels::cpu::has_avx512() ? "" : ":avx512"))
        << steps[0].reason;
  }
}

TEST(GridSampleKernel, LargeGridsSplitAmongThreads) {
  std::mt19937 rng(92);
  const std::vector<int64_t> x = {2, 17, 40, 33}, grid = {2, 61, 67, 2};
  for (int threads : {1, 2})
    expect_fast_matches_reference(grid_sample_graph(x, grid, "linear", "zeros", 0),
                                  {random_tensor(rng, x), random_tensor(rng, grid)},
                                  kernels::LayoutPolicy::kAuto, 1e-4, threads);
}

TEST(GridSampleKernel, DeclinesWithAReason) {
  std::mt19937 rng(93);
  const std::vector<int64_t> x = {1, 2, 5, 6}, grid = {1, 3, 4, 2};
  for (const auto& [mode, padding, why] :
       {std::tuple<std::string, std::string, std::string>{"cubic", "zeros", "cubic mode"},
        {"linear", "reflection", "reflection padding"}}) {
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(grid_sample_graph(x, grid, mode, padding, 0),
                                      {random_tensor(rng, x), random_tensor(rng, grid)});
    EXPECT_EQ(steps[0].kernel, "reference");
    EXPECT_NE(steps[0].reason.find(why), std::string::npos) << steps[0].reason;
  }
}

}  // namespace
}  // namespace strata::test
