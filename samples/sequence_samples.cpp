// Sequence-model pieces: fairseq's beamable matrix multiply.
#include "registry.hpp"
#include "sequence_ops.hpp"

namespace opbench::samples {

at::Tensor beamable_mm(const at::Tensor& input1, const at::Tensor& input2, std::int64_t beam) {
  if (beam <= 0 || input1.dim() != 3 || input1.size(1) != 1) return input1.bmm(input2);
  const auto bsz = input1.size(0);
  // bsz x 1 x nhu -> bsz/beam x beam x nhu; bsz x nhu x len -> bsz/beam x nhu x len (the first of each beam).
  const auto a = input1.select(1, 0).unfold(0, beam, beam).transpose(2, 1);
  const auto b = input2.unfold(0, beam, beam).select(3, 0);
  const auto output = a.size(0) == 1 ? at::mm(a[0], b[0]) : a.bmm(b);
  return output.reshape({bsz, 1, -1});
}

void register_sequence_samples(std::vector<Sample>& out) {
  // (rows: sentences x a beam of 4, hidden units, source length).
  out.push_back({{"beamableMM", {"IfElseBranch", "ViewAttribute", "AdvancedIndexing"}, "FAIRSEQ",
                  "https://github.com/facebookresearch/fairseq/blob/b5a039c292facba9c73f59ff34621ec131d82341/fairseq/"
                  "modules/beamable_mm.py#L10",
                  {sizes_case({8, 12, 12}), sizes_case({16, 16, 16}), sizes_case({32, 8, 8})}, false, "sequence_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto bsz = size_at(s, 0), nhu = size_at(s, 1), len = size_at(s, 2);
                   const auto encoder = at::randn({bsz / 4, nhu, len}, g).repeat_interleave(4, 0);
                   return Tensors{at::randn({bsz, 1, nhu}, g), encoder};
                 },
                 [](const Tensors& t) { return Tensors{beamable_mm(t[0], t[1], 4)}; }});
  out.back().info.axes = {"rows", "hidden", "source_length"};
}

}  // namespace opbench::samples
