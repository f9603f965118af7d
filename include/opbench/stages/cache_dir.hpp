// opbench's cache between runs: where the inductor stage keeps its packages and the executor
// the whole text of a compiler's failure (exec/executor.cpp names it in the result).
#pragma once

#include <string>

namespace opbench::stages {

// opbench's cache between runs: $OPBENCH_CACHE_DIR, else $XDG_CACHE_HOME/opbench, else
// ~/.cache/opbench (AOTInductor packages under aoti/, compilers' texts under failures/).
std::string cache_dir();

// Writes `text` to cache_dir()/failures/<case id, made a file name>-<hash>.txt and returns the
// path; "" when it cannot be written.
std::string keep_compiler_text(const std::string& case_id, const std::string& text);

} // namespace opbench::stages
