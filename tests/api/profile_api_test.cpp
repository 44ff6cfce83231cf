// strata/profile.h's profile of a prepared session over input sets (strata profile -i DIR), with
// bind_input_sets, Session::first_non_finite and check_view_columns.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "api/error_of.h"
#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;
namespace fs = std::filesystem;

// A folder of two input files for tiny_resnet's image (seeds 1 and 2), written by Session::pack.
std::string image_folder() {
  const Model model = Model::load(kExampleModel);
  const std::string root = testing::TempDir() + "/profile_api_sets";
  fs::remove_all(root);
  fs::create_directories(root + "/images");
  for (int seed : {1, 2}) {
    InputOptions in;
    in.seed = uint64_t(seed);
    const NamedArrays inputs = bind_inputs(model, in);
    const std::string dir = root + "/case" + std::to_string(seed);
    Session(model, inputs).pack(dir, inputs);
    fs::copy_file(dir + "/test_data_set_0/input_0.pb",
                  root + "/images/" + std::to_string(seed) + ".pb");
  }
  return root + "/images";
}

TEST(ProfileApi, AFolderGivesOneInputSetPerFileProfiledRoundRobin) {
  const Model model = Model::load(kExampleModel);
  InputOptions in;
  in.sources = {"image=" + image_folder()};
  const std::vector<NamedArrays> sets = bind_input_sets(model, in);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_NE(sets[0][0].origin.find("(2 files, round-robin)"), std::string::npos);
  EXPECT_NE(std::memcmp(sets[0][0].array.raw(), sets[1][0].array.raw(), sets[0][0].array.nbytes()),
            0);
  EXPECT_NE(error_of([&] { bind_inputs(model, in); }).find("a folder of inputs"),
            std::string::npos);

  Session session(model, sets[0]);
  EXPECT_EQ(session.first_non_finite(sets[0]), "");
  ProfileOptions options;
  options.iterations = 4;
  options.record = "--iter 4";
  const Profile p = profile(session, sets, options);
  EXPECT_EQ(p.summary().iterations, 4);
  EXPECT_NE(p.to_json().find("\"--iter 4\""), std::string::npos);
}

TEST(ProfileApi, FirstNonFiniteNamesTheNode) {
  const Model model = Model::load(kExampleModel);
  InputOptions in;
  Array image(DType::kF32, {1, 3, 32, 32});
  image.data<float>()[0] = std::numeric_limits<float>::infinity();
  in.arrays["image"] = image;
  const NamedArrays inputs = bind_inputs(model, in);
  Session session(model, inputs);
  const std::string bad = session.first_non_finite(inputs);
  EXPECT_NE(bad.find("node '"), std::string::npos) << bad;
}

TEST(ProfileApi, ViewColumnsAreChecked) {
  check_view_columns({"median"});
  EXPECT_NE(error_of([] { check_view_columns({"nope"}); }).find("'nope'"), std::string::npos);
}

}  // namespace
}  // namespace strata
