#include <gtest/gtest.h>

#include "opbench/config/named_dims.hpp"
#include "opbench/core/error.hpp"

namespace opbench::config {
namespace {

const std::map<std::string, std::int64_t> k_sizes{{"M", 64}, {"K", 128}, {"N", 256}, {"Seq_2", 7}};

TEST(NamedDims, NamesAreUpperCaseFirstWithoutAnX) {
  EXPECT_TRUE(is_dim_name("M"));
  EXPECT_TRUE(is_dim_name("Seq_2"));
  EXPECT_TRUE(is_dim_name("B"));
  EXPECT_FALSE(is_dim_name("m"));
  EXPECT_FALSE(is_dim_name("Max")); // 'x' joins sizes
  EXPECT_FALSE(is_dim_name("K-1"));
  EXPECT_FALSE(is_dim_name(""));
}

TEST(NamedDims, ShapeStringsArraysObjectsAndBareNamesTakeTheirSizes) {
  const Json args = Json::parse(R"({"self": "MxK", "mat2": ["K", "N"], "index": {"shape": ["Seq_2"],
    "dtype": "int64", "high": "N"}, "dim": "K", "ids": "Mx3:int64:randint", "reduction": "mean",
    "approximate": "tanh", "memory_format": "channels_last", "size": [2, "M"]})");
  const Json out = with_dims(args, k_sizes, "f.json:/operators/0/cases/0");
  EXPECT_EQ(out["self"], "64x128");
  EXPECT_EQ(out["mat2"], Json::parse("[128, 256]"));
  EXPECT_EQ(out["index"]["shape"], Json::parse("[7]"));
  EXPECT_EQ(out["index"]["high"], 256);
  EXPECT_EQ(out["index"]["dtype"], "int64");
  EXPECT_EQ(out["dim"], 128);
  EXPECT_EQ(out["ids"], "64x3:int64:randint");
  EXPECT_EQ(out["reduction"], "mean"); // not a shape: left as it is
  EXPECT_EQ(out["approximate"], "tanh");
  EXPECT_EQ(out["memory_format"], "channels_last");
  EXPECT_EQ(out["size"], Json::parse("[2, 64]"));
  EXPECT_EQ(dims_used(args), (std::vector<std::string>{"K", "M", "N", "Seq_2"}));
}

TEST(NamedDims, AnUndeclaredNameIsAnErrorNamingTheDeclaredOnes) {
  try {
    with_dims(Json::parse(R"({"self": "MxQ"})"), k_sizes, "f.json:/operators/0/cases/0");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "f.json:/operators/0/cases/0: dimension 'Q' has no value (declared: "
                           "K, M, N, Seq_2)");
  }
}

} // namespace
} // namespace opbench::config
