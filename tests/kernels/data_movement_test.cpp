// Views, transposes and slices (src/kernels/cpu/view.cpp, src/kernels/onednn/transpose.cpp,
// slice.cpp): the same values as the reference kernels, shared buffers where the bytes already are
// the output, and oneDNN reorders for real permutations and windows.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

TEST(ViewKernel, ReshapeFlattenSqueezeShareTheirInputsBuffer) {
  std::mt19937 rng(51);
  GraphBuilder g(13);
  g.input("x", {2, 3, 4});
  g.constant("shape", Tensor::from<int64_t>({2}, {6, 4}));
  g.constant("axes", Tensor::from<int64_t>({1}, {0}));
  g.node("Neg", {"x"}, {"n"});  // in the arena, so the views can share its buffer
  g.node("Reshape", {"n", "shape"}, {"r"});
  g.node("Unsqueeze", {"r", "axes"}, {"u"});
  g.node("Flatten", {"u"}, {"f"});
  g.node("Relu", {"f"}, {"y"});
  g.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {2, 3, 4})});
  for (size_t s = 1; s <= 3; ++s) {
    EXPECT_EQ(steps[s].kernel, "strata:view");
    EXPECT_TRUE(steps[s].in_place);
  }
}

TEST(TransposeKernel, RandomPermutationsMatchTheReference) {
  std::mt19937 rng(52);
  for (int i = 0; i < 12; ++i) {
    const int64_t rank = std::uniform_int_distribution<int64_t>(2, 5)(rng);
    std::vector<int64_t> shape, perm;
    for (int64_t d = 0; d < rank; ++d) {
      shape.push_back(std::uniform_int_distribution<int64_t>(1, 7)(rng));
      perm.push_back(d);
    }
    std::shuffle(perm.begin(), perm.end(), rng);
    SCOPED_TRACE(testing::Message() << Shape::of(shape).str() << " perm " << Shape::of(perm).str());
    GraphBuilder g;
    g.input("x", shape);
    g.node("Transpose", {"x"}, {"y"}).attributes["perm"] = attr_ints(perm);
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, shape)});
    EXPECT_NE(steps[0].kernel, "reference") << steps[0].reason;
  }
}

TEST(TransposeKernel, ChannelsLastToNhwcIsAView) {
  std::mt19937 rng(53);
  GraphBuilder g;
  g.input("x", {1, 8, 5, 6});
  g.constant("w", random_tensor(rng, {8, 1, 3, 3}));
  ir::Node& conv = g.node("Conv", {"x", "w"}, {"c"});
  conv.attributes["pads"] = attr_ints({1, 1, 1, 1});
  conv.attributes["group"] = attr_int(8);  // depthwise is cheap; the layout is what matters
  g.node("Transpose", {"c"}, {"t"}).attributes["perm"] = attr_ints({0, 2, 3, 1});
  g.node("Relu", {"t"}, {"r"});
  g.node("Transpose", {"r"}, {"y"}).attributes["perm"] = attr_ints({0, 3, 1, 2});
  g.output("y");
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      g.build(), {random_tensor(rng, {1, 8, 5, 6})}, kernels::LayoutPolicy::kChannelsLast);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].layout, "nhwc");
  EXPECT_EQ(steps[1].kernel, "strata:view");
  EXPECT_EQ(steps[3].kernel, "strata:view");
  EXPECT_EQ(steps[3].layout, "nhwc");  // then converted to plain for the caller
}

TEST(SliceKernel, RandomWindowsMatchTheReference) {
  std::mt19937 rng(54);
  for (int i = 0; i < 12; ++i) {
    const std::vector<int64_t> shape = {std::uniform_int_distribution<int64_t>(1, 9)(rng),
                                        std::uniform_int_distribution<int64_t>(2, 9)(rng),
                                        std::uniform_int_distribution<int64_t>(3, 30)(rng)};
    const int64_t axis = i % 3, dim = shape[size_t(axis)];
    const int64_t start = std::uniform_int_distribution<int64_t>(-dim, dim - 1)(rng);
    const int64_t step = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    SCOPED_TRACE(testing::Message() << Shape::of(shape).str() << " axis " << axis << " start "
                                    << start << " step " << step);
    GraphBuilder g(13);
    g.input("x", shape);
    g.constant("starts", Tensor::from<int64_t>({1}, {start}));
    g.constant("ends", Tensor::from<int64_t>({1}, {INT64_MAX}));
    g.constant("axes", Tensor::from<int64_t>({1}, {axis}));
    g.constant("steps", Tensor::from<int64_t>({1}, {step}));
    g.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, shape)});
    EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].reason;
  }
}

TEST(GatherKernel, RandomShapesAxesAndIndicesMatchTheReference) {
  std::mt19937 rng(54);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 16; ++i) {
    const int64_t rank = pick(1, 4);
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d) shape.push_back(pick(1, 7));
    const int64_t axis = pick(-rank, rank - 1);
    const int64_t axis_dim = shape[size_t(axis < 0 ? axis + rank : axis)];
    std::vector<int64_t> index_shape;
    for (int64_t d = pick(0, 2); d > 0; --d) index_shape.push_back(pick(1, 5));
    int64_t count = 1;
    for (int64_t d : index_shape) count *= d;
    std::vector<int64_t> indices;  // negative ones count from the end
    for (int64_t k = 0; k < count; ++k) indices.push_back(pick(-axis_dim, axis_dim - 1));
    const bool wide = i % 2 == 0;
    const bool constant_data = i % 3 == 0;  // an embedding table
    Tensor index_tensor = Tensor::zeros(wide ? DType::kI64 : DType::kI32, index_shape);
    for (int64_t k = 0; k < count; ++k) {
      if (wide)
        index_tensor.data<int64_t>()[k] = indices[size_t(k)];
      else
        index_tensor.data<int32_t>()[k] = int32_t(indices[size_t(k)]);
    }
    SCOPED_TRACE(testing::Message() << Shape::of(shape).str() << " axis " << axis << " indices "
                                    << Shape::of(index_shape).str() << (wide ? " int64" : " int32")
                                    << (constant_data ? " constant data" : ""));
    GraphBuilder g;
    if (constant_data)
      g.constant("data", random_tensor(rng, shape));
    else
      g.input("data", shape);
    g.input("indices", index_shape, index_tensor.dtype());
    g.node("Gather", {"data", "indices"}, {"g"}).attributes["axis"] = attr_int(axis);
    g.node("Neg", {"g"}, {"y"});
    g.output("y");
    std::vector<Tensor> inputs;
    if (!constant_data) inputs.push_back(random_tensor(rng, shape));
    inputs.push_back(index_tensor);
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), inputs);
    EXPECT_EQ(steps[0].kernel, "strata:gather") << steps[0].reason;
  }
}

// A column of a table (a detector's scores[:, k]) copies one value per row: each value size.
TEST(GatherKernel, ColumnsOfEveryValueSizeMatchTheReference) {
  for (DType dtype : {DType::kI64, DType::kF32, DType::kF16, DType::kU8}) {
    for (const std::vector<int64_t>& index_shape :
         {std::vector<int64_t>{}, std::vector<int64_t>{3}}) {
      SCOPED_TRACE(testing::Message()
                   << dtype_name(dtype) << " indices " << Shape::of(index_shape).str());
      GraphBuilder g;
      g.input("data", {6, 5, 7}, dtype);
      g.input("indices", index_shape, DType::kI64);
      g.node("Gather", {"data", "indices"}, {"y"}).attributes["axis"] = attr_int(2);
      g.output("y");
      Tensor data = Tensor::zeros(dtype, {6, 5, 7});
      auto* bytes = static_cast<uint8_t*>(data.raw());
      for (size_t i = 0; i < data.nbytes(); ++i) bytes[i] = uint8_t(i * 29 % 53);
      Tensor indices = Tensor::zeros(DType::kI64, index_shape);
      for (int64_t k = 0; k < indices.numel(); ++k) indices.data<int64_t>()[k] = 5 - 3 * k;
      const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
          g.build(), {data, indices}, kernels::LayoutPolicy::kAuto, 0);
      EXPECT_EQ(steps[0].kernel, "strata:gather") << steps[0].reason;
    }
  }
}

TEST(GatherKernel, OutOfRangeIndexFailsLikeTheReference) {
  GraphBuilder g;
  g.input("data", {4, 3});
  g.input("indices", {2}, DType::kI64);
  g.node("Gather", {"data", "indices"}, {"y"});
  g.output("y");
  const ir::Graph graph = g.build();
  const Tensor data = Tensor::zeros(DType::kF32, {4, 3});
  const Tensor indices = Tensor::from<int64_t>({2}, {1, 4});
  for (bool fast : {true, false}) {
    runtime::SessionOptions options;
    options.fast_kernels = fast;
    try {
      run_session(graph, {data, indices}, options);
      ADD_FAILURE() << "index 4 of a dimension of 4 was accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    }
  }
}

// Concatenations of convolution outputs stay in their layout (SqueezeNet, GoogLeNet, DenseNet)
// where whole channel blocks allow it, along the channels or a spatial axis; odd channel counts
// in the blocked layout run plain.
TEST(ConcatKernel, ConcatenationsKeepTheConvolutionsLayout) {
  std::mt19937 rng(38);
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kChannelsLast,
                      kernels::LayoutPolicy::kBlocked, kernels::LayoutPolicy::kPlain}) {
    for (int64_t axis : {1, 2, -1}) {
      for (int64_t second : {int64_t(16), int64_t(7)}) {
        SCOPED_TRACE(testing::Message()
                     << kernels::layout_policy_name(layout) << " axis " << axis << " " << second);
        const int64_t first = axis == 1 ? 32 : second;  // other axes need equal channels
        GraphBuilder g;
        g.input("x", {2, 3, 6, 5});
        g.constant("w1", random_tensor(rng, {first, 3, 1, 1}));
        g.constant("w2", random_tensor(rng, {second, 3, 3, 3}));
        g.node("Conv", {"x", "w1"}, {"a"});
        g.node("Conv", {"x", "w2"}, {"b"}).attributes["pads"] = attr_ints({1, 1, 1, 1});
        g.node("Concat", {"a", "b", "a"}, {"c"}).attributes["axis"] = attr_int(axis);
        g.node("Relu", {"c"}, {"y"});
        g.output("y");
        const std::vector<runtime::StepInfo> steps =
            expect_fast_matches_reference(g.build(), {random_tensor(rng, {2, 3, 6, 5})}, layout);
        ASSERT_EQ(steps.size(), 4u);
        EXPECT_EQ(steps[2].kernel, "strata:concat") << steps[2].reason;
        const bool splits_blocks = steps[0].layout == native_blocked_name() && axis == 1 &&
                                   second % channel_block(kernels::onednn::native_blocked_layout());
        if (!splits_blocks && steps[0].layout == steps[1].layout) {
          EXPECT_EQ(steps[2].layout, steps[0].layout);
          EXPECT_TRUE(steps[2].conversions.empty()) << steps[2].conversions[0];
        } else {
          EXPECT_EQ(steps[2].layout, "nchw");
        }
      }
    }
  }
}

TEST(ConcatKernel, AnyDtypeAnyAxisInPlainLayout) {
  for (int64_t axis : {0, 1, 2, -1}) {
    GraphBuilder g;
    g.input("p", {2, 3, 4}, DType::kI64);
    g.input("q", {2, 3, 4}, DType::kI64);
    g.input("r", {2, 3, 4}, DType::kI64);
    g.node("Concat", {"p", "q", "r"}, {"y"}).attributes["axis"] = attr_int(axis);
    g.output("y");
    std::vector<Tensor> inputs;
    for (int64_t k = 0; k < 3; ++k) {
      Tensor t = Tensor::zeros(DType::kI64, {2, 3, 4});
      for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = k * 100 + i;
      inputs.push_back(std::move(t));
    }
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), inputs);
    EXPECT_EQ(steps[0].kernel, "strata:concat") << axis;
  }
}

// Concatenations past 1 MiB are split among the threads by output bytes, so a range may start
// or end inside any input's chunk: a growing stack beside one new item (a Loop's mask stack,
// axis 0), and rows of uneven inputs (axis 1, several outer positions per thread).
TEST(ConcatKernel, LargeConcatenationsSplitAmongThreadsByBytes) {
  std::mt19937 rng(43);
  struct Case {
    std::vector<int64_t> a, b;
    int64_t axis;
  };
  const Case cases[] = {{{7, 200, 201}, {1, 200, 201}, 0}, {{5, 301, 97}, {5, 13, 97}, 1}};
  for (const Case& c : cases) {
    for (int threads : {2, 3}) {
      SCOPED_TRACE(testing::Message() << "axis " << c.axis << ", " << threads << " threads");
      GraphBuilder g;
      g.input("a", c.a);
      g.input("b", c.b);
      g.node("Concat", {"a", "b", "a"}, {"y"}).attributes["axis"] = attr_int(c.axis);
      g.output("y");
      const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
          g.build(), {random_tensor(rng, c.a), random_tensor(rng, c.b)},
          kernels::LayoutPolicy::kAuto, 0.0, threads);
      EXPECT_EQ(steps[0].kernel, "strata:concat");
    }
  }
}

// masked_fill as exported (Where(mask[T,T], -inf, scores[B,T,T])) and other suffix broadcasts,
// several dtypes; a broadcast along an inner axis stays with the reference kernel.
TEST(WhereKernel, SuffixAndScalarBroadcastsMatchTheReference) {
  std::mt19937 rng(41);
  struct Case {
    std::vector<int64_t> cond, x, y;
  };
  const Case cases[] = {{{7, 5}, {}, {3, 7, 5}},
                        {{3, 7, 5}, {3, 7, 5}, {1}},
                        {{1, 1, 5}, {7, 5}, {3, 7, 5}},
                        {{}, {3, 7, 5}, {3, 7, 5}}};
  for (const Case& c : cases) {
    for (DType dtype : {DType::kF32, DType::kI64, DType::kU8}) {
      GraphBuilder g;
      g.input("c", c.cond, DType::kBool);
      g.input("x", c.x, dtype);
      g.input("y", c.y, dtype);
      g.node("Where", {"c", "x", "y"}, {"out"});
      g.output("out");
      std::vector<Tensor> inputs;
      Tensor cond = Tensor::zeros(DType::kBool, c.cond);
      for (int64_t i = 0; i < cond.numel(); ++i) cond.data<bool>()[i] = rng() % 2;
      inputs.push_back(std::move(cond));
      for (const std::vector<int64_t>& shape : {c.x, c.y}) {
        Tensor t = dtype == DType::kF32 ? random_tensor(rng, shape) : Tensor::zeros(dtype, shape);
        for (int64_t i = 0; i < t.numel(); ++i) {
          if (dtype == DType::kI64) t.data<int64_t>()[i] = int64_t(rng() % 1000) - 500;
          if (dtype == DType::kU8) t.data<uint8_t>()[i] = uint8_t(rng());
        }
        inputs.push_back(std::move(t));
      }
      const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), inputs);
      EXPECT_EQ(steps[0].kernel, "strata:where") << steps[0].reason;
    }
  }
  GraphBuilder g;
  g.input("c", {3, 1, 5}, DType::kBool);
  g.input("x", {3, 7, 5});
  g.input("y", {3, 7, 5});
  g.node("Where", {"c", "x", "y"}, {"out"});
  g.output("out");
  const SessionResult r =
      run_session(g.build(),
                  {Tensor::zeros(DType::kBool, {3, 1, 5}), random_tensor(rng, {3, 7, 5}),
                   random_tensor(rng, {3, 7, 5})},
                  {});
  EXPECT_EQ(r.steps[0].kernel, "reference");
  EXPECT_NE(r.steps[0].reason.find("inner axis"), std::string::npos) << r.steps[0].reason;
}

}  // namespace
}  // namespace strata::test
