#include <gtest/gtest.h>

#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::core {

TEST(Strings, SplitKeepsOrSkipsEmptyPieces) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("a,,b", ',', true), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
}

TEST(Strings, SplitListFlattensCommaSeparatedItems) {
  EXPECT_EQ(split_list({"add, conv2d", "mm"}), (std::vector<std::string>{"add", "conv2d", "mm"}));
}

TEST(Strings, FirstLine) {
  EXPECT_EQ(
      first_line("DefaultCPUAllocator: can't allocate memory\nframe #0: c10::ThrowEnforceNotMet"),
      "DefaultCPUAllocator: can't allocate memory");
  EXPECT_EQ(first_line("one line"), "one line");
  EXPECT_EQ(first_line(""), "");
}

TEST(Strings, FileNameOfACaseIdKeepsItReadableAndApart) {
  const std::string a = file_name_of("add/self=4,other=4/float32/cpu/t1/forward");
  EXPECT_EQ(a.rfind("add_self=4,other=4_float32_cpu_t1_forward-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("add_self=4,other=4_float32_cpu_t1_forward-").size() + 8);
  // Ids that differ only where characters become `_` still get two names.
  EXPECT_NE(file_name_of("a/b"), file_name_of("a:b"));
  EXPECT_EQ(file_name_of(std::string(400, 'x')).size(), 150u + 1 + 8);
}

TEST(Strings, TrimJoin) {
  EXPECT_EQ(trim("  x y \t"), "x y");
  EXPECT_EQ(join({"a", "b", "c"}, "/"), "a/b/c");
}

TEST(Dtype, AliasesMapToCanonicalNames) {
  EXPECT_EQ(canonical_dtype("float"), "float32");
  EXPECT_EQ(canonical_dtype("torch.float16"), "float16");
  EXPECT_EQ(canonical_dtype("BF16"), "bfloat16");
  EXPECT_EQ(canonical_dtype("long"), "int64");
  EXPECT_TRUE(is_floating_dtype("bfloat16"));
  EXPECT_FALSE(is_floating_dtype("int64"));
}

TEST(Dtype, UnknownDtypeListsValidNames) {
  try {
    canonical_dtype("float8");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("valid: float32"), std::string::npos) << e.what();
  }
}

TEST(Device, ParsesCpuGpuAndCuda) {
  EXPECT_EQ(parse_device("cpu").str(), "cpu");
  EXPECT_EQ(parse_device("gpu0").str(), "cuda:0");
  EXPECT_EQ(parse_device("gpu1").str(), "cuda:1");
  EXPECT_EQ(parse_device("cuda:1").str(), "cuda:1");
  EXPECT_EQ(parse_device("cuda").str(), "cuda:0");
  EXPECT_THROW(parse_device("tpu0"), UsageError);
  EXPECT_THROW(parse_device("gpux"), UsageError);
}

// #47: a hostile JSON value 100,000 levels deep crashed every reader (the recursion in copying
// and printing it); now it is refused before it is built.
TEST(Json, ValuesNestedPastTheLimitAreRefusedNotBuilt) {
  auto nested = [](int depth, char open, char close) {
    return std::string(static_cast<std::size_t>(depth), open) +
           std::string(static_cast<std::size_t>(depth), close);
  };
  std::string error;
  EXPECT_TRUE(parse_json(nested(k_json_max_depth, '[', ']'), &error).has_value()) << error;
  for (const auto& text : {nested(k_json_max_depth + 1, '[', ']'), nested(100000, '[', ']')}) {
    EXPECT_FALSE(parse_json(text, &error).has_value());
    EXPECT_EQ(error, "JSON nested deeper than 128 levels");
  }
  std::string objects;
  for (int i = 0; i < 100000; ++i)
    objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  EXPECT_FALSE(parse_json(objects, &error).has_value());
  EXPECT_FALSE(parse_json("{\"a\": [1, 2", &error).has_value());
  EXPECT_EQ(error.rfind("invalid JSON (", 0), 0u) << error;
  EXPECT_EQ(parse_json("{\"a\": [1, 2]}")->at("a").size(), 2u);
}

TEST(Dtype, AnOverlongDeviceIndexIsAUsageErrorNotAnException) {
  EXPECT_THROW(parse_device("gpu99999999999999999999"), UsageError);
  EXPECT_THROW(parse_device("cuda:65536"), UsageError);
  EXPECT_EQ(parse_device("cuda:65535").index, 65535);
}

TEST(Strings, NearestWordsByEditDistanceIgnoringCase) {
  const std::vector<std::string> known = {"add", "mul", "addmm", "ForLoop", "softmax"};
  EXPECT_EQ(nearest("addd", known), (std::vector<std::string>{"add", "addmm", "mul"}));
  EXPECT_EQ(nearest("forloop", known, 1), (std::vector<std::string>{"ForLoop"}));
  EXPECT_TRUE(nearest("x", {}).empty());
}

} // namespace opbench::core
