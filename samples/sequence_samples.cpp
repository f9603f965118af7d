// Sequence-model pieces (NLP and speech): fairseq's beamable matrix multiply, token collation and
// positions, OpenNMT's sequence mask, AssemblyAI's greedy CTC decoder.
#include "registry.hpp"
#include "sequence_ops.hpp"

namespace opbench::samples {

at::Tensor beamable_mm(const at::Tensor& input1, const at::Tensor& input2, std::int64_t beam) {
  if (beam <= 0 || input1.dim() != 3 || input1.size(1) != 1)
    return input1.bmm(input2);
  const auto bsz = input1.size(0);
  // bsz x 1 x nhu -> bsz/beam x beam x nhu; bsz x nhu x len -> bsz/beam x nhu x len (the first of
  // each beam).
  const auto a = input1.select(1, 0).unfold(0, beam, beam).transpose(2, 1);
  const auto b = input2.unfold(0, beam, beam).select(3, 0);
  const auto output = a.size(0) == 1 ? at::mm(a[0], b[0]) : a.bmm(b);
  return output.reshape({bsz, 1, -1});
}

at::Tensor collate_tokens(const std::vector<at::Tensor>& values, std::int64_t pad_idx) {
  int64_t size = 0;
  for (const auto& v : values)
    size = std::max(size, v.size(0));
  auto out =
      at::full({static_cast<int64_t>(values.size()), size}, pad_idx, values.front().options());
  for (std::size_t i = 0; i < values.size(); ++i)
    out[static_cast<int64_t>(i)].narrow(0, 0, values[i].size(0)).copy_(values[i]);
  return out;
}

std::vector<at::Tensor> greedy_decoder(const at::Tensor& output, std::int64_t blank) {
  const auto best = output.argmax(2);
  std::vector<at::Tensor> decoded;
  for (int64_t b = 0; b < best.size(0); ++b) {
    const auto seq = best[b];
    auto keep = seq != blank;
    // Collapse repeats: keep a label only where it differs from the one before.
    keep.narrow(0, 1, seq.size(0) - 1)
        .logical_and_(seq.narrow(0, 1, seq.size(0) - 1) != seq.narrow(0, 0, seq.size(0) - 1));
    decoded.push_back(seq.index({keep}));
  }
  return decoded;
}

at::Tensor sequence_mask(const at::Tensor& lengths, std::int64_t max_len) {
  return at::arange(max_len, lengths.options()).unsqueeze(0) < lengths.unsqueeze(1);
}

at::Tensor make_positions(const at::Tensor& tokens, std::int64_t padding_idx) {
  const auto mask = tokens.ne(padding_idx).to(at::kLong);
  return at::cumsum(mask, 1) * mask + padding_idx;
}

void register_sequence_samples(std::vector<Sample>& out) {
  Family family(out, "sequence_samples.cpp");
  // (rows: sentences x a beam of 4, hidden units, source length).
  family
      .add("beamableMM", {"IfElseBranch", "ViewAttribute", "AdvancedIndexing"}, "FAIRSEQ",
           "https://github.com/facebookresearch/fairseq/blob/"
           "b5a039c292facba9c73f59ff34621ec131d82341/fairseq/"
           "modules/beamable_mm.py#L10")
      .axes({"rows", "hidden", "source_length"})
      .cases({{8, 12, 12}, {16, 16, 16}, {32, 8, 8}})
      .inputs([](const Json& s, at::Generator& g) {
        const auto bsz = size_at(s, 0), nhu = size_at(s, 1), len = size_at(s, 2);
        const auto encoder = at::randn({bsz / 4, nhu, len}, g).repeat_interleave(4, 0);
        return Tensors{at::randn({bsz, 1, nhu}, g), encoder};
      })
      .body([](const Tensors& t) { return Tensors{beamable_mm(t[0], t[1], 4)}; });
  family
      .add("collate_tokens", {"ForLoop", "IfElseBranch", "AdvancedIndexing"}, "FAIRSEQ",
           "https://github.com/facebookresearch/fairseq/blob/"
           "b5a039c292facba9c73f59ff34621ec131d82341/fairseq/data/data_utils.py#L37")
      // Integer inputs alone: a case's dtype would reach no computation.
      .dtypes({"float32"})
      .axes({"sequences", "max_length", "unused"})
      .cases({{8, 12, 12}, {16, 16, 16}, {32, 8, 8}})
      .inputs([](const Json& s, at::Generator& g) {
        Tensors values;
        const auto lengths = at::randint(1, size_at(s, 1) + 1, {size_at(s, 0)}, g, k_long);
        for (int64_t i = 0; i < size_at(s, 0); ++i)
          values.push_back(random_labels(1000, {lengths[i].item<int64_t>()}, g) + 2);
        return values;
      })
      .body([](const Tensors& t) { return Tensors{collate_tokens(t, 1)}; });
  family
      .add("greedy_decoder", {"ForLoop", "Reduce", "AdvancedIndexing", "BuiltInDataStructure"},
           "ASSEMBLYAI",
           "https://colab.research.google.com/drive/"
           "1IPpwx4rX32rqHKpLz7dc8sOKspUa-YKO#scrollTo=RVJs4Bk8FjjO")
      .axes({"batch", "time_steps_x8", "classes"})
      .cases({{12, 12, 12}, {16, 16, 16}, {32, 32, 32}})
      .host_sync(
          "as the original: each decoded sequence's length depends on the data (boolean mask)")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{
            at::randn({size_at(s, 0), size_at(s, 1) * 8, size_at(s, 2)}, g).log_softmax(2)};
      })
      .body([](const Tensors& t) { return greedy_decoder(t[0], t[0].size(2) - 1); });
  family
      .add("sequence_mask", {"InputAware", "Broadcast", "ViewAttribute"}, "OPENNMT",
           "https://github.com/OpenNMT/OpenNMT-py/blob/c8081afa3fab4e169c34a84f9304cf37184f97d7/"
           "onmt/utils/misc.py#L56")
      // Integer inputs alone: a case's dtype would reach no computation.
      .dtypes({"float32"})
      .axes({"sequences"})
      .cases({{12}, {16}, {32}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randint(1, size_at(s, 0) + 1, {size_at(s, 0)}, g, k_long)};
      })
      .body([](const Tensors& t) { return Tensors{sequence_mask(t[0], t[0].size(0))}; });
  family
      .add("make_positions", {"InputAware", "Reduce"}, "FAIRSEQ",
           "https://github.com/facebookresearch/fairseq/blob/"
           "b5a039c292facba9c73f59ff34621ec131d82341/fairseq/utils.py#L256")
      // Integer inputs alone: a case's dtype would reach no computation.
      .dtypes({"float32"})
      .axes({"batch", "length"})
      .cases({{12, 12}, {16, 16}, {32, 32}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randint(1, 100, {size_at(s, 0), size_at(s, 1)}, g, k_long)};
      })
      .body([](const Tensors& t) { return Tensors{make_positions(t[0], 1)}; });
}

} // namespace opbench::samples
