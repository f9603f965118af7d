#pragma once
// Sequence-model pieces (fairseq) written from each sample's source at its url.

#include <ATen/ATen.h>

#include <cstdint>

namespace opbench::samples {

// fairseq's BeamableMM in inference: input1 (bsz, 1, nhu) times input2 (bsz, nhu, len), where the
// `beam` rows of a sentence share input2 (beam search repeats the encoder output): one bmm per
// sentence over its beam instead of one per row; input1.bmm(input2) otherwise.
at::Tensor beamable_mm(const at::Tensor& input1, const at::Tensor& input2, std::int64_t beam);

at::Tensor collate_tokens(const std::vector<at::Tensor>& values, std::int64_t pad_idx);
std::vector<at::Tensor> greedy_decoder(const at::Tensor& output, std::int64_t blank);
at::Tensor sequence_mask(const at::Tensor& lengths, std::int64_t max_len);
at::Tensor make_positions(const at::Tensor& tokens, std::int64_t padding_idx);

} // namespace opbench::samples
