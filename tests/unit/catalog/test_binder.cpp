#include <gtest/gtest.h>

#include "opbench/catalog/binder.hpp"
#include "opbench/core/error.hpp"

namespace opbench::catalog {
namespace {

std::string bind_error(const std::string& op, const Json& args) {
  try {
    bind_case(op, args, "ops.csv:7");
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError for " << op << " " << args.dump();
  return "";
}

TEST(Binder, Conv2dFillsDefaultsAndExpandsIntLists) {
  const BoundOp b = bind_case(
      "conv2d", {{"input", "1x3x8x8"}, {"weight", {4, 3, 3, 3}}, {"stride", 2}}, "ops.csv:2");
  EXPECT_EQ(b.qualified(), "aten::conv2d");
  EXPECT_EQ(b.given["input"], Json({{"shape", {1, 3, 8, 8}}}));
  EXPECT_EQ(b.given["weight"], Json({{"shape", {4, 3, 3, 3}}}));
  EXPECT_EQ(b.given["stride"], Json({2, 2})); // int[2] from one int
  EXPECT_EQ(b.arguments["padding"], Json({0, 0}));
  EXPECT_EQ(b.arguments["groups"], 1);
  EXPECT_TRUE(b.arguments["bias"].is_null());
  // Schema order, whatever order the config used.
  std::vector<std::string> keys;
  for (const auto& item : b.arguments.items())
    keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"input", "weight", "bias", "stride", "padding",
                                            "dilation", "groups"}));
}

TEST(Binder, UnknownArgumentNamesValidOnes) {
  const std::string message =
      bind_error("conv2d", {{"input", "1x3x8x8"}, {"weight", "4x3x3x3"}, {"strides", 2}});
  EXPECT_NE(message.find("ops.csv:7: unknown argument 'strides' for aten::conv2d "
                         "(valid: input, weight, bias, stride, padding, dilation, groups)"),
            std::string::npos)
      << message;
}

TEST(Binder, MissingRequiredArgument) {
  const std::string message = bind_error("conv2d", {{"input", "1x3x8x8"}});
  EXPECT_NE(message.find("ops.csv:7: missing required argument 'weight' for aten::conv2d"),
            std::string::npos)
      << message;
}

TEST(Binder, WrongKindOfValue) {
  const std::string message = bind_error("mm.default", {{"self", "4x4"}, {"mat2", 3}});
  EXPECT_NE(message.find("argument 'mat2'"), std::string::npos) << message;
  EXPECT_NE(message.find("expected a tensor shape"), std::string::npos) << message;
}

TEST(Binder, UnknownOperator) {
  EXPECT_NE(bind_error("conv9d", {}).find("LibTorch has no operator aten::conv9d"),
            std::string::npos);
  EXPECT_NE(bind_error("add.Nope", {}).find("LibTorch has no operator aten::add.Nope"),
            std::string::npos);
}

TEST(Binder, OverloadChosenByArguments) {
  EXPECT_EQ(bind_case("add", {{"self", "2x2"}, {"other", "2x2"}}, "x").qualified(),
            "aten::add.Tensor");
  EXPECT_EQ(bind_case("add", {{"self", "2x2"}, {"other", 2.5}}, "x").qualified(),
            "aten::add.Scalar");
  EXPECT_EQ(bind_case("aten::sum", {{"self", "2x2"}}, "x").qualified(), "aten::sum");
  EXPECT_EQ(bind_case("sum", {{"self", "2x2"}, {"dim", 1}}, "x").qualified(),
            "aten::sum.dim_IntList");
  EXPECT_EQ(bind_case("add.Tensor", {{"self", "2x2"}, {"other", "2x2"}}, "x").overload, "Tensor");
}

TEST(Binder, SameFailureInEveryOverloadIsSaidOnce) {
  const std::string message = bind_error("add", {{"self", "2x2"}, {"bogus", 1}});
  EXPECT_EQ(message,
            "ops.csv:7: unknown argument 'bogus' for aten::add (valid: self, other, alpha)");
}

TEST(Binder, NoOverloadFitsListsEveryAttempt) {
  const std::string message = bind_error("add", {{"self", "2x2"}, {"other", "abc"}});
  EXPECT_NE(message.find("the arguments fit no overload of aten::add"), std::string::npos)
      << message;
  EXPECT_NE(message.find("aten::add.Tensor"), std::string::npos) << message;
  EXPECT_NE(message.find("aten::add.Scalar"), std::string::npos) << message;
}

TEST(Binder, TensorListsDtypesAndObjects) {
  const BoundOp cat = bind_case("cat", {{"tensors", "2x3;2x3"}, {"dim", 0}}, "x");
  EXPECT_EQ(cat.given["tensors"], Json::array({{{"shape", {2, 3}}}, {{"shape", {2, 3}}}}));
  const BoundOp sel = bind_case("index_select",
                                {{"self", "100x8"},
                                 {"dim", 0},
                                 {"index", {{"shape", {16}}, {"dtype", "int64"}, {"high", 100}}}},
                                "x");
  EXPECT_EQ(sel.given["index"]["dtype"], "int64");
  EXPECT_EQ(sel.given["index"]["high"], 100.0);
  const BoundOp sum = bind_case("sum", {{"self", "4x4"}, {"dtype", "double"}}, "x");
  EXPECT_EQ(sum.given["dtype"], "float64");
}

TEST(Binder, BadTensorObject) {
  const std::string message =
      bind_error("relu", {{"self", {{"shape", {4}}, {"init", "gaussian"}}}});
  EXPECT_NE(message.find("unknown init 'gaussian'"), std::string::npos) << message;
}

TEST(Registry, KnowsThousandsOfOperators) {
  const auto names = registered_operators();
  EXPECT_GT(names.size(), 2000u);
  EXPECT_NE(std::find(names.begin(), names.end(), "aten::conv2d"), names.end());
  EXPECT_FALSE(schemas_of("add").empty());
  EXPECT_TRUE(schemas_of("no_such_op").empty());
}

} // namespace
} // namespace opbench::catalog
