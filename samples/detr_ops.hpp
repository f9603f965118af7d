#pragma once
// DETR's heads (facebookresearch/detr, models/detr.py and models/position_encoding.py): the
// cardinality error, the post-processor, and the learned and sine position embeddings (written
// from each sample's source at its url).

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace opbench::samples {

at::Tensor detr_loss_cardinality(const at::Tensor& logits, const at::Tensor& target_lengths);
std::vector<at::Tensor> detr_postprocess(const at::Tensor& logits, const at::Tensor& boxes,
                                         const at::Tensor& sizes);
at::Tensor position_embedding_learned(const at::Tensor& x, const at::Tensor& row_embed,
                                      const at::Tensor& col_embed);
at::Tensor position_embedding_sine(const at::Tensor& mask, std::int64_t num_pos_feats = 64,
                                   double temperature = 10000.0);

} // namespace opbench::samples
