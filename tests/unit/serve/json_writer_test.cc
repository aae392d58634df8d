// SPDX-License-Identifier: MIT
#include "serve/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "text_escape.h"

namespace stallwatch::collector {
namespace {

using nlohmann::json;

TEST(JsonWriter, NestedValuesParseBackExactly) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("a").integer(-5);
  w.key("b")
      .begin_array()
      .integer(std::uint64_t{18446744073709551615u})
      .boolean(true)
      .null()
      .end_array();
  w.key("c").begin_object().end_object();
  w.key("d").begin_array().end_array();
  w.key("e").string("x");
  w.key("f").raw("[1,2]");
  w.end_object();
  const json doc = json::parse(out);
  EXPECT_EQ(doc["a"], -5);
  EXPECT_EQ(doc["b"][0].get<std::uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(doc["b"][1], true);
  EXPECT_TRUE(doc["b"][2].is_null());
  EXPECT_TRUE(doc["c"].is_object() && doc["c"].empty());
  EXPECT_TRUE(doc["d"].is_array() && doc["d"].empty());
  EXPECT_EQ(doc["f"], json::array({1, 2}));
}

TEST(JsonWriter, DoublesRoundTripAndNonFiniteIsNull) {
  const double values[] = {0.1, 1.0 / 3.0, 1e-300, 6.02214076e23, -2.5, 0.0, 1e21};
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  for (double v : values)
    w.number(v);
  w.number(std::numeric_limits<double>::quiet_NaN());
  w.number(std::numeric_limits<double>::infinity());
  w.number(-std::numeric_limits<double>::infinity());
  w.end_array();
  const json doc = json::parse(out);
  for (std::size_t i = 0; i < std::size(values); ++i)
    EXPECT_EQ(doc[i].get<double>(), values[i]) << out;
  EXPECT_TRUE(doc[7].is_null());
  EXPECT_TRUE(doc[8].is_null());
  EXPECT_TRUE(doc[9].is_null());
  EXPECT_NE(out.find("0.1,"), std::string::npos) << "shortest form expected: " << out;
}

TEST(JsonWriter, EscapesEverythingJsonRequires) {
  std::string text = "quote\" backslash\\ nl\n tab\t cr\r bs\b ff\f";
  text.push_back('\x01');
  text.push_back('\x1f');
  text.push_back('\0');
  text += "del\x7f \xC3\xBC \xE2\x82\xAC \xF0\x9F\x98\x80";
  std::string out;
  JsonWriter w(out);
  w.begin_object().escaped_key(text).string(text).end_object();
  const json doc = json::parse(out);
  ASSERT_TRUE(doc.contains(text));
  EXPECT_EQ(doc[text].get<std::string>(), text);
  EXPECT_NE(out.find("\\u0001"), std::string::npos);
  EXPECT_NE(out.find("\\u0000"), std::string::npos);
}

TEST(JsonWriter, InvalidUtf8BecomesReplacementCharacter) {
  const std::string bad[] = {"\xFF",     "a\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                             "\xE2\x82", "\x80x"};
  for (const std::string& b : bad) {
    std::string out;
    JsonWriter(out).string(b);
    const json doc = json::parse(out);  // throws on invalid UTF-8
    EXPECT_NE(doc.get<std::string>().find("\xEF\xBF\xBD"), std::string::npos)
        << "input " << json(out).dump();
  }
}

TEST(TextEscape, Utf8SequenceLength) {
  EXPECT_EQ(utf8_sequence_length("a"), 1u);
  EXPECT_EQ(utf8_sequence_length("\xC3\xBC"), 2u);
  EXPECT_EQ(utf8_sequence_length("\xE2\x82\xAC"), 3u);
  EXPECT_EQ(utf8_sequence_length("\xF0\x9F\x98\x80"), 4u);
  EXPECT_EQ(utf8_sequence_length("\xE0\x80\x80"), 0u);      // overlong
  EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
}

TEST(TextEscape, PrometheusLabelAndHelp) {
  std::string label;
  append_label_escaped(label, "a\"b\\c\nd");
  EXPECT_EQ(label, "a\\\"b\\\\c\\nd");
  std::string help;
  append_help_escaped(help, "a\"b\\c\nd");
  EXPECT_EQ(help, "a\"b\\\\c\\nd");
}

}  // namespace
}  // namespace stallwatch::collector
