#pragma once
// The Python that opbench hands what LibTorch's C++ API cannot do (AOTInductor's compiler for the
// inductor stages, torch.export.load for `extract --exported`): $OPBENCH_PYTHON, else the set-up's
// .venv. Its torch must be this LibTorch's version (python_torch_version says which it is).

#include <string>

namespace opbench::stages {

// $OPBENCH_PYTHON, else the set-up's .venv/bin/python.
std::string compiler_python();

// The torch version of `python` ("" when it does not run), asked once per process and Python.
std::string python_torch_version(const std::string& python);

// The version's release (`2.15.0` of `2.15.0+cu130`).
std::string release_of(const std::string& version);

// `text` quoted for /bin/sh.
std::string shell_quoted(const std::string& text);

} // namespace opbench::stages
