#include "opbench/cli/main.hpp"

int main(int argc, char** argv) {
  return opbench::cli::main(argc, argv);
}
