#include <gtest/gtest.h>

#include <algorithm>

#include "opbench/config/loader.hpp"
#include "opbench/core/error.hpp"
#include "temp_dir.hpp"

namespace opbench::config {
namespace {

using testing::TempDir;

// The message of the ConfigError that `fn` throws; fails the test when it throws none.
template <typename Fn> std::string config_error(Fn&& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return "";
}

TEST(ParseCell, JsonWhenItParsesElseString) {
  EXPECT_TRUE(parse_cell("").is_null());
  EXPECT_EQ(parse_cell("[1, 1]"), Json::array({1, 1}));
  EXPECT_EQ(parse_cell("2.5"), Json(2.5));
  EXPECT_EQ(parse_cell("true"), Json(true));
  EXPECT_EQ(parse_cell("32x3x224x224"), Json("32x3x224x224"));
  EXPECT_EQ(parse_cell("mean"), Json("mean"));
  EXPECT_EQ(parse_cell(R"({"shape":[4],"dtype":"int64"})")["dtype"], "int64");
}

TEST(LoadCsv, ReadsColumnsMetadataAndQuotedJson) {
  TempDir dir;
  const auto path = dir.write(
      "conv.csv", "op,shape_class,source,tags,input,weight,stride,padding\n"
                  "conv2d,common,\"ResNet-50, conv1\",nn conv,1x3x224x224,64x3x7x7,\"[2,2]\",3\n"
                  "\n"
                  "conv2d,small,,,1x3x8x8,4x3x3x3,,\n");
  const auto cases = load_csv(path);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].op, "conv2d");
  EXPECT_EQ(cases[0].shape_class, "common");
  EXPECT_EQ(cases[0].source, "ResNet-50, conv1");
  EXPECT_EQ(cases[0].tags, (std::vector<std::string>{"nn", "conv"}));
  EXPECT_EQ(cases[0].args["input"], "1x3x224x224");
  EXPECT_EQ(cases[0].args["stride"], Json::array({2, 2}));
  EXPECT_EQ(cases[0].args["padding"], 3);
  EXPECT_EQ(cases[0].row, 2);
  EXPECT_EQ(cases[0].location(), path + ":2");
  // The blank line is skipped but still counted: the second case is on line 4.
  EXPECT_EQ(cases[1].row, 4);
  EXPECT_FALSE(cases[1].args.contains("stride")); // empty cell: default
}

TEST(LoadCsv, WrongFieldCountNamesFileAndLine) {
  TempDir dir;
  const auto path = dir.write("bad.csv", "op,self,other\nadd,[1],[1]\nadd,[2]\n");
  const std::string message = config_error([&] { load_csv(path); });
  EXPECT_NE(message.find(path + ":3: expected 3 fields"), std::string::npos) << message;
}

// #46: one malformed row hid the other bad rows; now each is said, one line each.
TEST(LoadCsv, EveryBadRowIsSaidAtOnce) {
  TempDir dir;
  const auto path = dir.write("bad.csv", "op,self,other\nadd,[2]\nadd,[1],[1]\n,[1],[1]\n"
                                         "mul,[1]\n");
  const std::string message = config_error([&] { load_csv(path); });
  EXPECT_NE(message.find(path + ":2: expected 3 fields"), std::string::npos) << message;
  EXPECT_NE(message.find("\n" + path + ":4: empty 'op' cell"), std::string::npos) << message;
  EXPECT_NE(message.find("\n" + path + ":5: expected 3 fields"), std::string::npos) << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 2) << message;
}

TEST(LoadCsv, MissingOpColumn) {
  TempDir dir;
  const auto path = dir.write("noop.csv", "name,self\nadd,[1]\n");
  const std::string message = config_error([&] { load_csv(path); });
  EXPECT_NE(message.find(path + ":1: missing column 'op'"), std::string::npos) << message;
}

TEST(LoadCsv, UnterminatedQuoteIsMalformed) {
  TempDir dir;
  const auto path = dir.write("quote.csv", "op,self\nadd,\"[1,2]\n");
  const std::string message = config_error([&] { load_csv(path); });
  EXPECT_NE(message.find("malformed CSV"), std::string::npos) << message;
  EXPECT_NE(message.find(path + ":"), std::string::npos) << message;
}

TEST(LoadCsv, EmptyOpCell) {
  TempDir dir;
  const auto path = dir.write("empty.csv", "op,self\n,[1]\n");
  const std::string message = config_error([&] { load_csv(path); });
  EXPECT_NE(message.find(path + ":2: empty 'op' cell"), std::string::npos) << message;
}

TEST(LoadCsv, NulByteInACellIsAnErrorNotACut) {
  TempDir dir;
  const std::string text("op,self\nrelu,[4]\0\n", 18); // the NUL right after [4]
  const auto path = dir.write("nul.csv", text);
  const std::string message = config_error([&] { load_csv(path); });
  EXPECT_NE(message.find(path + ":2: column 'self' holds a NUL byte"), std::string::npos)
      << message;
}

TEST(LoadCsv, HeaderOnlyNamesTheFile) {
  TempDir dir;
  const auto path = dir.write("header.csv", "op,self\n\n");
  const std::string message = config_error([&] { load_csv(path); });
  EXPECT_NE(message.find(path + ":1: a header and no case rows"), std::string::npos) << message;
}

TEST(LoadJson, TagsMustBeAList) {
  TempDir dir;
  const auto path = dir.write(
      "tags.json", R"([{"op": "relu", "tags": "not-a-list", "cases": [{"args": {"self": [4]}}]}])");
  const std::string message = config_error([&] { load_json(path); });
  EXPECT_NE(message.find("'tags' must be a list of strings"), std::string::npos) << message;
  EXPECT_NE(message.find("found string"), std::string::npos) << message;
}

TEST(LoadJson, ReadsOperatorsAndCases) {
  TempDir dir;
  const auto path = dir.write("ops.json", R"({"operators": [
    {"op": "mm", "category": "gemm", "tags": ["blas"], "cases": [
      {"args": {"self": [64, 32], "mat2": "32x16"}, "shape_class": "small", "tags": ["x"]},
      {"args": {"self": [8, 8], "mat2": [8, 8]}, "source": "toy"}]}]})");
  const auto cases = load_json(path);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].op, "mm");
  EXPECT_EQ(cases[0].category, "gemm");
  EXPECT_EQ(cases[0].tags, (std::vector<std::string>{"blas", "x"}));
  EXPECT_EQ(cases[0].args["mat2"], "32x16");
  EXPECT_EQ(cases[1].source, "toy");
  EXPECT_EQ(cases[1].location(), path + ":/operators/0/cases/1");
}

TEST(LoadJson, LibrariesAreRelativeToTheConfigAndEveryCaseCarriesThem) {
  TempDir dir;
  const auto path = dir.write("mine.json", R"({"libraries": ["build/libmine.so", "/abs/libx.so"],
    "operators": [{"op": "mine::op", "cases": [{"args": {"self": [4]}}, {"args": {}}]}]})");
  const auto cases = load_json(path);
  ASSERT_EQ(cases.size(), 2u);
  const std::vector<std::string> expected{dir.file("build/libmine.so"), "/abs/libx.so"};
  EXPECT_EQ(cases[0].libraries, expected);
  EXPECT_EQ(cases[1].libraries, expected);
  for (const char* bad : {R"("libmine.so")", R"([3])", R"([""])"}) {
    const auto wrong =
        dir.write("wrong.json", std::string(R"({"libraries": )") + bad +
                                    R"(, "operators": [{"op": "relu", "cases": [{"args": {}}]}]})");
    const std::string message = config_error([&] { load_json(wrong); });
    EXPECT_NE(message.find(wrong + ":/libraries"), std::string::npos) << message;
  }
}

TEST(LoadJson, NamedDimensionsAreDeclaredUsedAndPositive) {
  TempDir dir;
  const auto path = dir.write("dims.json", R"({"operators": [{"op": "mm", "cases": [
    {"dims": {"M": 64, "K": 32, "N": 16}, "args": {"self": "MxK", "mat2": ["K", "N"]}}]}]})");
  const auto cases = load_json(path);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].dims, (std::map<std::string, std::int64_t>{{"K", 32}, {"M", 64}, {"N", 16}}));
  EXPECT_EQ(cases[0].args["self"], "MxK"); // as written: the catalog binds it with the sizes
  const std::vector<std::pair<std::string, std::string>> wrong{
      {R"({"M": 0, "K": 1})", "dimension 'M' must be a positive integer, got 0"},
      {R"({"m": 4, "K": 1})", "dimension name 'm' must start with an upper-case letter"},
      {R"({"M": 4})", "dimension 'K' has no value (declared: M)"},
      {R"({"M": 4, "K": 2, "Q": 3})",
       "dimension 'Q' is declared in 'dims' but no argument uses it"},
      {R"([4])", "'dims' must be an object of dimension name -> size"}};
  for (const auto& [dims, said] : wrong) {
    const auto bad = dir.write("bad.json", R"({"operators": [{"op": "mm", "cases": [{"dims": )" +
                                               dims + R"(, "args": {"self": "MxK"}}]}]})");
    const std::string message = config_error([&] { load_json(bad); });
    EXPECT_NE(message.find(bad + ":/operators/0/cases/0: " + said), std::string::npos) << message;
  }
}

TEST(LoadJson, AVariantGroupsCasesAreReadOncePerImplementationTheFirstTheBaseline) {
  TempDir dir;
  const auto path = dir.write("v.json", R"({"variants": [{"name": "gelu_tanh", "tags": ["act"],
    "implementations": [{"op": "gelu", "args": {"approximate": "tanh"}}, {"op": "mine::gelu"}],
    "cases": [{"args": {"self": "TxH"}, "dims": {"T": 8, "H": 4}}, {"args": {"self": "4x4"}}]}]})");
  const auto cases = load_json(path);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].op, "gelu");
  EXPECT_EQ(cases[0].args, Json::parse(R"({"self": "TxH", "approximate": "tanh"})"));
  EXPECT_TRUE(cases[0].variant_baseline);
  EXPECT_EQ(cases[1].op, "mine::gelu");
  EXPECT_EQ(cases[1].args, Json::parse(R"({"self": "TxH"})"));
  EXPECT_FALSE(cases[1].variant_baseline);
  EXPECT_EQ(cases[1].dims.at("T"), 8);
  for (const auto& c : cases) {
    EXPECT_EQ(c.variant_group, "gelu_tanh");
    EXPECT_EQ(c.tags, std::vector<std::string>{"act"});
  }
  EXPECT_EQ(cases[1].variant_point, "/variants/0/cases/0");
  EXPECT_EQ(cases[3].variant_point, "/variants/0/cases/1");
  EXPECT_EQ(cases[3].location(), path + ":/variants/0/cases/1/implementations/1");

  const std::vector<std::pair<std::string, std::string>> wrong{
      {R"([{"name": "g", "implementations": [{"op": "relu"}], "cases": [{"args": {}}]}])",
       ":/variants/0/implementations: a variant group needs two implementations"},
      {R"([{"name": "g", "implementations": [{"op": "relu", "args": {"self": "4"}}, {"op": "abs"}],
          "cases": [{"args": {"self": "4x4"}}]}])",
       ":/variants/0/cases/0: argument 'self' is given by the case and by implementation 0 (relu)"},
      {R"([{"name": "g", "implementations": [{"op": "relu"}, {}], "cases": [{"args": {}}]}])",
       ":/variants/0/implementations/1: missing 'op'"},
      {R"([{"implementations": [{"op": "relu"}, {"op": "abs"}], "cases": [{"args": {}}]}])",
       ":/variants/0: 'name' must be a name no other variant group of the file has"}};
  for (const auto& [variants, said] : wrong) {
    const auto bad = dir.write("bad.json", R"({"variants": )" + variants + "}");
    const std::string message = config_error([&] { load_json(bad); });
    EXPECT_NE(message.find(bad + said), std::string::npos) << message;
  }
}

TEST(LoadJson, UnknownCaseKeyNamesPointerAndValidKeys) {
  TempDir dir;
  const auto path =
      dir.write("bad.json", R"({"operators": [{"op": "mm", "cases": [{"argz": {}}]}]})");
  const std::string message = config_error([&] { load_json(path); });
  EXPECT_NE(message.find(path + ":/operators/0/cases/0: unknown key 'argz'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("valid: args"), std::string::npos) << message;
}

TEST(LoadJson, SyntaxError) {
  TempDir dir;
  const auto path = dir.write("broken.json", R"({"operators": [)");
  const std::string message = config_error([&] { load_json(path); });
  EXPECT_NE(message.find(path + ": invalid JSON"), std::string::npos) << message;
}

// Found by bench/fuzz.sh: a number too large for a double is not a parse_error but an
// out_of_range error of nlohmann_json, which escaped the loader and ended the process.
TEST(LoadJson, NumberTooLargeIsAConfigErrorNamingTheFile) {
  TempDir dir;
  const auto path = dir.write("huge.json", R"({"operators": [1.5E61688888888]})");
  const std::string message = config_error([&] { load_json(path); });
  EXPECT_NE(message.find(path + ": invalid JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("number overflow"), std::string::npos) << message;
}

TEST(LoadFile, RejectsOtherExtensions) {
  TempDir dir;
  const auto path = dir.write("ops.yaml", "op: add\n");
  EXPECT_THROW(load_file(path), ConfigError);
}

TEST(ConfigFilesIn, SortedCsvAndJsonOnly) {
  TempDir dir;
  dir.write("b.json", "{}");
  dir.write("a.csv", "op\n");
  dir.write("notes.txt", "x");
  const auto files = config_files_in(dir.path());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], dir.file("a.csv"));
  EXPECT_EQ(files[1], dir.file("b.json"));
  EXPECT_THROW(config_files_in(dir.file("missing")), ConfigError);
}

} // namespace
} // namespace opbench::config
