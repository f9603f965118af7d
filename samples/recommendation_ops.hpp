#pragma once
// Attention layers of PaddleRec's recall and ranking models: MIND's label-aware attention, BST's
// scaled dot-product attention and MHCN's channel attention (written from the Paddle code at each
// sample's url).

#include <ATen/ATen.h>

#include <vector>

namespace opbench::samples {

// keys (B, K, D) interest capsules, query (B, D) the label's embedding: softmax over K of
// (keys . query)^pow_p, then the weighted sum of the keys. Returns {output (B, D), weight (B, K,
// 1)}.
std::vector<at::Tensor> label_aware_attention(const at::Tensor& keys, const at::Tensor& query,
                                              double pow_p = 1.0);
// q, k, v (B, L, D) and an additive bias (B, L, L) or an undefined tensor: softmax(q k^T / sqrt(D)
// + bias) v (no dropout: inference).
at::Tensor bst_scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k,
                                            const at::Tensor& v, const at::Tensor& attn_bias);
// channels: C embeddings (N, D); att (1, D), att_mat (D, D). Per channel the score
// sum(att * (embedding @ att_mat), 1), softmax over the channels, then the score-weighted sum of
// the channels. Returns {mixed (N, D), score (N, C)}.
std::vector<at::Tensor> channel_attention(const std::vector<at::Tensor>& channels,
                                          const at::Tensor& att, const at::Tensor& att_mat);

at::Tensor factorization_machine(const at::Tensor& embeddings);
at::Tensor smooth_step(const at::Tensor& x, double gamma = 1.0);
at::Tensor split_heads_qkv(const at::Tensor& x, std::int64_t heads);
at::Tensor word2vec_loss(const at::Tensor& input, const at::Tensor& true_word,
                         const at::Tensor& negatives);
at::Tensor squash(const at::Tensor& vectors, double eps = 1e-9);
at::Tensor dec2bin(const at::Tensor& x, std::int64_t bits);

} // namespace opbench::samples
