// The rule of core/files.hpp, checked on the binary itself: the C++ standard library functions
// this program imports resolve to libstdc++, never to copies a LibTorch wheel exports (some wheels
// export statically linked libstdc++ symbols, and their std::filesystem crashes: pytorch/pytorch
// #133437). Reads this test program's own dynamic symbol table (ELF .dynsym) and asks the
// dynamic linker (dlsym, dladdr) which library defines each undefined std:: symbol.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <ATen/ATen.h>

namespace {

// Names of the undefined symbols in the dynamic symbol table of the ELF file at `path`.
std::vector<std::string> undefined_dynamic_symbols(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  if (image.size() < sizeof(Elf64_Ehdr) || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    return out;
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(image.data());
  const auto* sections = reinterpret_cast<const Elf64_Shdr*>(image.data() + header->e_shoff);
  for (int i = 0; i < header->e_shnum; ++i) {
    if (sections[i].sh_type != SHT_DYNSYM)
      continue;
    const Elf64_Shdr& strings = sections[sections[i].sh_link];
    const auto* symbols = reinterpret_cast<const Elf64_Sym*>(image.data() + sections[i].sh_offset);
    const std::size_t count = sections[i].sh_size / sizeof(Elf64_Sym);
    for (std::size_t s = 0; s < count; ++s) {
      if (symbols[s].st_shndx != SHN_UNDEF || symbols[s].st_name == 0)
        continue;
      out.emplace_back(image.data() + strings.sh_offset + symbols[s].st_name);
    }
  }
  return out;
}

bool is_std(const std::string& name) {
  return name.rfind("_ZNSt", 0) == 0 || name.rfind("_ZSt", 0) == 0 || name.rfind("_ZNKSt", 0) == 0;
}

TEST(LibTorchSymbols, StdResolvesToLibstdcxx) {
  (void)at::ones({1}); // LibTorch is loaded and in use
  const std::vector<std::string> names = undefined_dynamic_symbols("/proc/self/exe");
  ASSERT_FALSE(names.empty()) << "could not read this program's dynamic symbols";
  int checked = 0, standard = 0;
  std::string wrong, unresolved;
  for (const auto& name : names) {
    if (!is_std(name))
      continue;
    ++standard;
    if (name.find("10filesystem") != std::string::npos)
      wrong += name + " (std::filesystem is not used: core/files.hpp)\n";
    void* address = ::dlsym(RTLD_DEFAULT, name.c_str());
    Dl_info info{};
    if (address == nullptr || ::dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
      if (unresolved.size() < 400)
        unresolved += name + " ";
      continue;
    }
    ++checked;
    const std::string library = info.dli_fname;
    if (library.find("libtorch") != std::string::npos ||
        library.find("libc10") != std::string::npos) {
      wrong += name + " -> " + library + "\n";
    }
  }
  // (A build that imports no std:: symbol at all has nothing to check: seen with g++ 13.)
  if (standard > 0)
    EXPECT_GT(checked, 0) << standard
                          << " std:: symbols imported; not found by dlsym: " << unresolved;
  EXPECT_TRUE(wrong.empty()) << wrong;
}

} // namespace
