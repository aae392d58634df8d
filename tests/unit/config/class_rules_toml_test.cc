// SPDX-License-Identifier: MIT
#include "config/class_rules_toml.h"

#include <gtest/gtest.h>

#include <string>

#include "config/class_presets.h"

namespace stallwatch::collector {
namespace {

constexpr ClassMask bit(EventClass c) {
  return class_bit(c);
}

TEST(ClassRulesToml, ParsesPresetAndRulesInOrder) {
  const std::string text = R"(
# comments are fine
[classes]
preset = "dlio"

[[classes.rule]]
classes = ["compute"]
cat = "ai_framework"
name = ["TorchFramework.compute", "*.forward"]
main_thread = true

[[classes.rule]]
class = "io"
cat = ["POSIX", "STDIO"]

[[classes.rule]]
classes = []
name = "noise*"
)";
  ClassRulesConfig config;
  ASSERT_EQ(parse_class_rules_toml(text, "rules.toml", config), "");
  EXPECT_EQ(config.preset, "dlio");
  ASSERT_EQ(config.rules.size(), 3u);
  EXPECT_EQ(config.rules[0].classes, bit(EventClass::kCompute));
  EXPECT_EQ(config.rules[0].cat, std::vector<std::string>{"ai_framework"});
  EXPECT_EQ(config.rules[0].name.size(), 2u);
  EXPECT_TRUE(config.rules[0].main_thread_only);
  EXPECT_EQ(config.rules[1].classes, bit(EventClass::kIo));
  EXPECT_EQ(config.rules[1].cat.size(), 2u);
  EXPECT_EQ(config.rules[2].classes, 0);

  ClassMapping mapping;
  ASSERT_EQ(build_class_mapping(config, mapping), "");
  EXPECT_EQ(mapping.classify("ai_framework", "Net.forward", true), bit(EventClass::kCompute));
  EXPECT_EQ(mapping.classify("ai_framework", "Net.forward", false), 0);  // dlio: other hooks
  EXPECT_EQ(mapping.classify("x", "noise.tick", true), 0);
  // The preset still applies after the rules.
  EXPECT_EQ(mapping.classify("data_loader", "loop.iter", true),
            bit(EventClass::kFetch) | bit(EventClass::kAppIo));
}

TEST(ClassRulesToml, TextThatIsNotUtf8IsRejectedWithItsLine) {
  ClassRulesConfig config;
  EXPECT_EQ(parse_class_rules_toml("[classes]\npreset = 'f\xd4'\n", "rules.toml", config),
            "rules.toml:2: not valid UTF-8 (a TOML file must be UTF-8)");
}

TEST(ClassRulesToml, ArraysNestedTooDeepAreRejectedWithTheirLine) {
  ClassRulesConfig config;
  EXPECT_EQ(parse_class_rules_toml("[classes]\nrule = " + std::string(20000, '{') + "\n",
                                   "rules.toml", config),
            "rules.toml:2: arrays and inline tables nested more than 64 deep");
}

TEST(ClassRulesToml, DefaultsToTheDefaultPreset) {
  ClassRulesConfig config;
  ASSERT_EQ(parse_class_rules_toml("[classes]\n", "x.toml", config), "");
  EXPECT_EQ(config.preset, "default");
  EXPECT_TRUE(config.rules.empty());
}

struct BadCase {
  const char* text;
  const char* expected;  // substring of the error
};

class ClassRulesTomlErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ClassRulesTomlErrors, NameTheLineAndKey) {
  ClassRulesConfig config;
  config.preset = "untouched";
  const std::string error = parse_class_rules_toml(GetParam().text, "rules.toml", config);
  EXPECT_NE(error.find(GetParam().expected), std::string::npos) << error;
  EXPECT_EQ(config.preset, "untouched");  // nothing applied on error
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ClassRulesTomlErrors,
    ::testing::Values(
        BadCase{"[classes]\npreset = \"dlio\"\n[[classes.rule]]\nclasses = [\"gpu\"]\n",
                "rules.toml:4: classes.rule[1].classes: unknown class 'gpu'"},
        BadCase{"[classes]\n[[classes.rule]]\nclass = \"io\"\n[[classes.rule]]\nclass = "
                "\"io\"\ncat = 3\n",
                "rules.toml:6: classes.rule[2].cat: must be a string or a list of strings"},
        BadCase{"[classes]\n[[classes.rule]]\nclass = \"io\"\nclasses = [\"io\"]\n",
                "classes.rule[1]: needs exactly one of 'classes' or 'class'"},
        BadCase{"[classes]\n[[classes.rule]]\nname = \"x\"\n",
                "classes.rule[1]: needs exactly one of 'classes' or 'class'"},
        BadCase{"[classes]\n[[classes.rule]]\nclass = \"io\"\nmain = true\n",
                "rules.toml:4: classes.rule[1].main: unknown key"},
        BadCase{"[classes]\n[[classes.rule]]\nclass = \"io\"\nmain_thread = \"yes\"\n",
                "rules.toml:4: classes.rule[1].main_thread: must be true or false"},
        BadCase{"[classes]\npreset = \"slurm\"\n",
                "rules.toml:2: classes.preset: unknown preset 'slurm' (known: default, dlio)"},
        BadCase{"[classes]\nrules = 1\n", "rules.toml:2: classes.rules: unknown key"},
        BadCase{"[classes]\npreset = \"dlio\n", "rules.toml:2:"},
        BadCase{"[other]\nx = 1\n", "rules.toml: no [classes] table"}),
    [](const ::testing::TestParamInfo<BadCase>& param) {
      return "case" + std::to_string(param.index);
    });

}  // namespace
}  // namespace stallwatch::collector
