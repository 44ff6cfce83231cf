// strata's Attention kernel (src/kernels/cpu/attention.cpp) against the reference kernel: random
// 3-D and 4-D shapes with odd sizes, grouped-query heads, causal rows, softcap, float and bool
// masks of every rank, a key/value cache, present outputs, one and two threads, AVX-512 and
// portable loops; and the reasons it declines.
#include <gtest/gtest.h>

#include <optional>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

// A bool mask with roughly one key in four hidden, and always the first one shown (a row with
// nothing to attend to is tested on its own).
Tensor random_bool_mask(std::mt19937& rng, const std::vector<int64_t>& shape) {
  Tensor t = Tensor::zeros(DType::kBool, shape);
  const int64_t last = shape.back();
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<bool>()[i] = i % last == 0 || random_int(rng, 0, 3);
  return t;
}

std::string attention_kernel_name(kernels::cpu::Simd level) {
  return level == kernels::cpu::Simd::kScalar
             ? "strata:attention"
             : std::string("strata:attention:") + kernels::cpu::simd_name(level);
}

TEST(AttentionKernel, RandomShapesMatchTheReference) {
  std::mt19937 rng(81);
  for (int i = 0; i < 32; ++i) {
    const bool three_d = i % 2;
    const int64_t B = random_int(rng, 1, 2), Hkv = random_int(rng, 1, 3),
                  Hq = Hkv * random_int(rng, 1, 3);
    const int64_t Sq = random_int(rng, 1, 21), T = i % 3 ? Sq : random_int(rng, 1, 21);
    const int64_t D = random_int(rng, 1, 37), Dv = i % 4 ? D : random_int(rng, 1, 37);
    const bool causal = i % 3 == 1;
    const int mask_kind = i % 5;  // 0: none, 1-2: float, 3-4: bool
    const int64_t mask_rank = random_int(rng, 1, 4);
    const int threads = 1 + (i / 2) % 2;
    // Each shape on the next of this CPU's instruction sets, the portable loops among them.
    const std::vector<kernels::cpu::Simd> levels = simd_levels_here();
    const kernels::cpu::Simd level = levels[size_t(i) % levels.size()];
    const SimdCeiling ceiling(level);
    const std::vector<int64_t> q =
        three_d ? std::vector<int64_t>{B, Sq, Hq * D} : std::vector<int64_t>{B, Hq, Sq, D};
    const std::vector<int64_t> k =
        three_d ? std::vector<int64_t>{B, T, Hkv * D} : std::vector<int64_t>{B, Hkv, T, D};
    const std::vector<int64_t> v =
        three_d ? std::vector<int64_t>{B, T, Hkv * Dv} : std::vector<int64_t>{B, Hkv, T, Dv};
    const std::vector<int64_t> full = {B, Hq, Sq, T};
    std::vector<int64_t> mask(full.end() - mask_rank, full.end());
    for (size_t d = 0; d + 1 < mask.size(); ++d)
      if (random_int(rng, 0, 1)) mask[d] = 1;  // broadcast along some axes
    SCOPED_TRACE(testing::Message()
                 << "Q " << Shape::of(q).str() << " K " << Shape::of(k).str() << " V "
                 << Shape::of(v).str() << " causal " << causal << " mask " << mask_kind << " "
                 << Shape::of(mask).str() << " threads " << threads);
    GraphBuilder g(23);
    g.input("q", q);
    g.input("k", k);
    g.input("v", v);
    std::vector<Tensor> inputs = {random_tensor(rng, q), random_tensor(rng, k),
                                  random_tensor(rng, v)};
    std::vector<std::string> names = {"q", "k", "v"};
    if (mask_kind) {
      const bool boolean = mask_kind >= 3;
      g.input("mask", mask, boolean ? DType::kBool : DType::kF32);
      inputs.push_back(boolean ? random_bool_mask(rng, mask) : random_tensor(rng, mask));
      names.push_back("mask");
    }
    std::vector<std::string> outputs = {"y"};
    if (i % 7 == 0) outputs = {"y", "present_key", "present_value"};
    ir::Node& n = g.node("Attention", names, outputs);
    if (three_d) {
      n.attributes["q_num_heads"] = attr_int(Hq);
      n.attributes["kv_num_heads"] = attr_int(Hkv);
    }
    if (causal) n.attributes["is_causal"] = attr_int(1);
    if (i % 6 == 5) n.attributes["scale"] = attr_float(0.3f);
    if (i % 8 == 3) n.attributes["softcap"] = attr_float(0.7f);
    for (const std::string& o : outputs) g.output(o);
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), inputs, kernels::LayoutPolicy::kAuto, 1e-4, threads);
    EXPECT_EQ(steps[0].kernel, attention_kernel_name(level)) << steps[0].reason;
  }
}

TEST(AttentionKernel, RowsWithEveryKeyMaskedGiveZeros) {
  std::mt19937 rng(82);
  GraphBuilder g(23);
  g.input("q", {1, 2, 3, 8});
  g.input("k", {1, 2, 5, 8});
  g.input("v", {1, 2, 5, 8});
  g.input("mask", {3, 5}, DType::kBool);
  g.node("Attention", {"q", "k", "v", "mask"}, {"y"});
  g.output("y");
  Tensor mask = Tensor::zeros(DType::kBool, {3, 5});
  mask.data<bool>()[7] = true;  // row 1 sees key 2; rows 0 and 2 see nothing
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      g.build(), {random_tensor(rng, {1, 2, 3, 8}), random_tensor(rng, {1, 2, 5, 8}),
                  random_tensor(rng, {1, 2, 5, 8}), mask});
  EXPECT_NE(steps[0].kernel.find("strata:attention"), std::string::npos) << steps[0].reason;
}

TEST(AttentionKernel, KeyValueCacheMatchesTheReference) {
  std::mt19937 rng(84);
  for (int i = 0; i < 12; ++i) {
    const bool three_d = i % 2;
    const int64_t B = random_int(rng, 1, 2), Hkv = random_int(rng, 1, 2),
                  Hq = Hkv * random_int(rng, 1, 2);
    const int64_t Sq = random_int(rng, 1, 9), P = random_int(rng, 0, 11),
                  D = random_int(rng, 1, 20);
    const int64_t Dv = i % 3 ? D : random_int(rng, 1, 20);
    const bool causal = i % 4 < 2, mask = i % 3 == 0;
    const int threads = 1 + (i / 2) % 2;
    // Each shape on the next of this CPU's instruction sets, the portable loops among them.
    const std::vector<kernels::cpu::Simd> levels = simd_levels_here();
    const kernels::cpu::Simd level = levels[size_t(i) % levels.size()];
    const SimdCeiling ceiling(level);
    SCOPED_TRACE(testing::Message() << "three_d " << three_d << " B " << B << " Hq " << Hq
                                    << " Hkv " << Hkv << " Sq " << Sq << " P " << P << " D " << D
                                    << " Dv " << Dv << " causal " << causal << " mask " << mask);
    const std::vector<int64_t> q =
        three_d ? std::vector<int64_t>{B, Sq, Hq * D} : std::vector<int64_t>{B, Hq, Sq, D};
    const std::vector<int64_t> k =
        three_d ? std::vector<int64_t>{B, Sq, Hkv * D} : std::vector<int64_t>{B, Hkv, Sq, D};
    const std::vector<int64_t> v =
        three_d ? std::vector<int64_t>{B, Sq, Hkv * Dv} : std::vector<int64_t>{B, Hkv, Sq, Dv};
    const std::vector<int64_t> past_k = {B, Hkv, P, D}, past_v = {B, Hkv, P, Dv};
    GraphBuilder g(23);
    g.input("q", q);
    g.input("k", k);
    g.input("v", v);
    if (mask) g.input("mask", {Sq, P + Sq});
    g.input("past_key", past_k);
    g.input("past_value", past_v);
    ir::Node& n = g.node("Attention", {"q", "k", "v", mask ? "mask" : "", "past_key", "past_value"},
                         {"y", "present_key", "present_value"});
    if (three_d) {
      n.attributes["q_num_heads"] = attr_int(Hq);
      n.attributes["kv_num_heads"] = attr_int(Hkv);
    }
    if (causal) n.attributes["is_causal"] = attr_int(1);
    for (const char* o : {"y", "present_key", "present_value"}) g.output(o);
    std::vector<Tensor> inputs = {random_tensor(rng, q), random_tensor(rng, k),
                                  random_tensor(rng, v)};
    if (mask) inputs.push_back(random_tensor(rng, {Sq, P + Sq}));
    inputs.push_back(random_tensor(rng, past_k));
    inputs.push_back(random_tensor(rng, past_v));
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), inputs, kernels::LayoutPolicy::kAuto, 1e-4, threads);
    EXPECT_EQ(steps[0].kernel, attention_kernel_name(level)) << steps[0].reason;
  }
}

TEST(AttentionKernel, DeclinesWithAReason) {
  std::mt19937 rng(83);
  const std::vector<Tensor> qkv = {random_tensor(rng, {1, 2, 4, 8}),
                                   random_tensor(rng, {1, 2, 4, 8}),
                                   random_tensor(rng, {1, 2, 4, 8})};
  {
    GraphBuilder g(23);
    for (const char* name : {"q", "k", "v"}) g.input(name, {1, 2, 4, 8});
    g.node("Attention", {"q", "k", "v"}, {"y", "unread_key", "unread_value", "qk"});
    g.output("y");
    g.output("qk");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), qkv);
    EXPECT_EQ(steps[0].kernel, "reference");
    EXPECT_NE(steps[0].reason.find("qk_matmul_output"), std::string::npos) << steps[0].reason;
  }
}

}  // namespace
}  // namespace strata::test
