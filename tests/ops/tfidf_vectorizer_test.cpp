// TfIdfVectorizer (src/ops/tfidf_vectorizer.cpp).
#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

// The pool of ONNX's examples: 4 unigrams (2, 3, 5, 4) and 3 bigrams (5 6, 7 8, 6 7).
OpCall vectorizer(std::string mode, int64_t min_n, int64_t max_n, int64_t skip) {
  OpCall call = op_call("TfIdfVectorizer", 9,
                        {{"mode", attr_string(std::move(mode))},
                         {"min_gram_length", attr_int(min_n)},
                         {"max_gram_length", attr_int(max_n)},
                         {"max_skip_count", attr_int(skip)},
                         {"ngram_counts", attr_ints({0, 4})},
                         {"ngram_indexes", attr_ints({0, 1, 2, 3, 4, 5, 6})},
                         {"pool_int64s", attr_ints({2, 3, 5, 4, 5, 6, 7, 8, 6, 7})}});
  call.inputs = {Tensor::from<int32_t>({12}, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8})};
  return call;
}

TEST(TfIdfVectorizer, CountsUnigramsAndBigramsWithoutSkips) {
  // Unigrams: 3 three times, 5 once; bigrams: "7 8" once, "6 7" once, "5 6" once.
  expect_near(run_op(vectorizer("TF", 1, 2, 0))[0], {0, 3, 1, 0, 1, 1, 1});
  expect_near(run_op(vectorizer("TF", 2, 2, 0))[0], {0, 0, 0, 0, 1, 1, 1});
}

TEST(TfIdfVectorizer, SkipsFindMoreBigramsButCountUnigramsOnce) {
  // "7 8" is found again 3 and 6 items apart (x[8], x[11] and x[5], x[11]); the unigrams keep
  // their counts (counted at skip 0 only).
  expect_near(run_op(vectorizer("TF", 1, 2, 5))[0], {0, 3, 1, 0, 1, 3, 1});
}

TEST(TfIdfVectorizer, BatchesStringsAndWeights) {
  OpCall call = op_call("TfIdfVectorizer", 9,
                        {{"mode", attr_string("TFIDF")},
                         {"min_gram_length", attr_int(1)},
                         {"max_gram_length", attr_int(1)},
                         {"max_skip_count", attr_int(0)},
                         {"ngram_counts", attr_ints({0})},
                         {"ngram_indexes", attr_ints({1, 0})},
                         {"weights", attr_floats({0.5f, 2})},
                         {"pool_strings", attr_strings({"a", "b"})}});
  Tensor x = Tensor::zeros(DType::kString, {2, 3});
  const char* items[] = {"a", "a", "b", "c", "b", "b"};
  for (int i = 0; i < 6; ++i) x.data<std::string>()[i] = items[i];
  call.inputs = {x};
  const Tensor y = run_op(call)[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2}));
  // Row 0: "a" twice (coordinate 1, weight 2), "b" once (coordinate 0, weight 0.5).
  expect_near(y, {0.5f, 4, 1, 0});
  call.attributes["mode"] = attr_string("IDF");
  expect_near(run_op(call)[0], {0.5f, 2, 0.5f, 0});
}

TEST(TfIdfVectorizer, BadAttributesAndInputsFail) {
  expect_error([&] { run_op(vectorizer("TF", 2, 1, 0)); },
               {"'min_gram_length' (2) and 'max_gram_length' (1)"});
  expect_error([&] { run_op(vectorizer("BM25", 1, 2, 0)); },
               {"attribute 'mode' must be TF, IDF or TFIDF"});
  OpCall call = vectorizer("TF", 1, 2, 0);
  call.attributes["ngram_counts"] = attr_ints({0, 5});  // 5 items left for bigrams: not pairs
  expect_error([&] { run_op(call); }, {"does not split the pool"});
  call = vectorizer("TF", 1, 2, 0);
  call.inputs = {Tensor::from<float>({2}, {2, 3})};
  expect_error([&] { run_op(call); }, {"input 'X' has dtype float32"});
  call.inputs = {Tensor::zeros(DType::kI64, {1, 2, 2})};
  expect_error([&] { run_op(call); }, {"must be [C] or [N, C]"});
}

}  // namespace
}  // namespace strata::test
