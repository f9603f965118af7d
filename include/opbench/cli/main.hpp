#pragma once
// The command line: `opbench run|list|list-tags|show|export`. The binary's main calls this.

namespace opbench::cli {

// Parses arguments, runs the subcommand and returns the exit code (0 ok, 1 a case failed,
// 2 usage, config or device error).
int main(int argc, char** argv);

} // namespace opbench::cli
