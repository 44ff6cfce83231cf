// strata/diff.h: two profiles compared, per node, with the text and page of `strata diff`.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include "api/error_of.h"
#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;

Profile profile_of_tiny() {
  const Model model = Model::load(kExampleModel);
  ProfileOptions options;
  options.iterations = 6;
  return profile(model, bind_inputs(model, {}), options);
}

TEST(DiffApi, TwoProfilesOfOneModelMatchNodeForNode) {
  const Profile a = profile_of_tiny();
  const Profile b = profile_of_tiny();
  DiffOptions options;
  options.label_a = "before.json";
  options.label_b = "after.json";
  const ProfileDiff d = diff_profiles(a, b, options);
  EXPECT_EQ(d.whole().median_a_ms, a.summary().median_ms);
  EXPECT_EQ(d.whole().median_b_ms, b.summary().median_ms);
  EXPECT_NEAR(d.whole().ratio, b.summary().median_ms / a.summary().median_ms, 1e-9);
  EXPECT_LE(d.whole().low, d.whole().high);
  EXPECT_FALSE(d.whole().verdict.empty());
  ASSERT_EQ(d.nodes().size(), a.nodes().size());
  for (const NodeDiff& n : d.nodes()) EXPECT_TRUE(n.in_a && n.in_b) << n.name;
  EXPECT_EQ(d.nodes()[0].name, a.nodes()[0].name);
  const std::string text = d.render();
  EXPECT_NE(text.find("before.json"), std::string::npos);
  EXPECT_NE(text.find("after.json"), std::string::npos);
  EXPECT_NE(d.html().find("<html"), std::string::npos);
}

TEST(DiffApi, OptionsOutOfRangeAreNamed) {
  const Profile a = profile_of_tiny();
  DiffOptions options;
  options.confidence = 2;
  EXPECT_NE(error_of([&] { diff_profiles(a, a, options); }).find("confidence"), std::string::npos);
  options = {};
  options.resamples = 5;
  EXPECT_NE(error_of([&] { diff_profiles(a, a, options); }).find("resamples"), std::string::npos);
}

}  // namespace
}  // namespace strata
