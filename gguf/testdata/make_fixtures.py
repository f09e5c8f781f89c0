#!/usr/bin/env python3
"""Write the GGUF fixtures of package gguf's tests: tiny models, real keys.

Each fixture is a complete GGUF file written with llama.cpp's own gguf-py
(GGUFWriter): the metadata keys and tensor names and shapes that llama.cpp's
loader for the architecture reads (src/llama-arch.cpp, src/models/ARCH.cpp),
at widths small enough that a file stays under 100 KB. The tensor data is
zeros: blsim reads only the header, and the bytes are the GGML types' real
sizes.

Usage (from the repository root):
    python3 gguf/testdata/make_fixtures.py [--gguf-py /work/llama.cpp/gguf-py]

gguf-py imports sentencepiece at import time; when that is missing, a stub
module is written to a temporary directory, which is enough for writing.
The gguf-py of llama.cpp build 4748 predates MXFP4 (ggml type 39, blocks of
32 weights in 17 bytes, ggml-common.h block_mxfp4): the script registers it
in gguf.GGML_QUANT_SIZES for the gpt-oss fixture.

The output is deterministic; the Go tests read the files as committed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np


def import_gguf(gguf_py):
    if gguf_py:
        sys.path.insert(0, os.path.abspath(gguf_py))
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        stub = tempfile.mkdtemp(prefix="spm-stub-")
        with open(os.path.join(stub, "sentencepiece.py"), "w") as f:
            f.write("class SentencePieceProcessor:\n    pass\n")
        sys.path.insert(0, stub)
    import gguf  # noqa: E402

    return gguf


class MXFP4(int):
    """ggml type 39, which this gguf-py's enum lacks."""

    name = "MXFP4"

    def __new__(cls):
        return super().__new__(cls, 39)


def qtype(gguf, name):
    if name == "mxfp4":
        t = MXFP4()
        gguf.GGML_QUANT_SIZES[t] = (32, 17)
        return t
    return gguf.GGMLQuantizationType[name.upper()]


class Fixture:
    """A model under construction: keys, then tensors by ggml shape (ne)."""

    def __init__(self, gguf, arch, name):
        self.gguf, self.arch = gguf, arch
        self.kv = [("general.name", name)]
        self.tensors = []

    def key(self, k, v):
        self.kv.append((k.replace("ARCH", self.arch), v))

    def tensor(self, name, ne, typ="q8_0"):
        self.tensors.append((name, list(ne), typ))

    def vocab(self, n, model="gpt2"):
        self.key("tokenizer.ggml.model", model)
        self.key("tokenizer.ggml.tokens", ["<unk>", "<s>", "</s>"] + ["t%d" % i for i in range(3, n)])

    def write(self, path):
        g = self.gguf
        w = g.GGUFWriter(path, self.arch)
        for k, v in self.kv:
            if isinstance(v, bool):
                w.add_bool(k, v)
            elif isinstance(v, int):
                w.add_uint32(k, v)
            elif isinstance(v, float):
                w.add_float32(k, v)
            elif isinstance(v, str):
                w.add_string(k, v)
            else:
                w.add_array(k, v)
        for name, ne, typ in self.tensors:
            shape = list(reversed(ne))  # numpy order: the row (ne[0]) last
            if typ == "f32":
                w.add_tensor(name, np.zeros(shape, dtype=np.float32))
            elif typ == "f16":
                w.add_tensor(name, np.zeros(shape, dtype=np.float16))
            else:
                t = qtype(g, typ)
                block, size = g.GGML_QUANT_SIZES[t]
                assert ne[0] % block == 0, (name, ne, typ)
                shape[-1] = ne[0] // block * size
                w.add_tensor(name, np.zeros(shape, dtype=np.uint8), raw_dtype=t)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()


# The tiny shapes every fixture shares.
D, VOCAB = 32, 128


def common(f, layers, heads, kv_heads, key_length=None):
    f.key("ARCH.block_count", layers)
    f.key("ARCH.context_length", 4096)
    f.key("ARCH.embedding_length", D)
    f.key("ARCH.attention.head_count", heads)
    if kv_heads is not None:
        f.key("ARCH.attention.head_count_kv", kv_heads)
    if key_length is not None:
        f.key("ARCH.attention.key_length", key_length)
        f.key("ARCH.attention.value_length", key_length)
    f.key("ARCH.attention.layer_norm_rms_epsilon", 1e-6)
    f.key("ARCH.rope.freq_base", 10000.0)
    f.vocab(VOCAB)


def embed(f, typ="q8_0", tied=False, out="q8_0"):
    f.tensor("token_embd.weight", [D, VOCAB], typ)
    f.tensor("output_norm.weight", [D], "f32")
    if not tied:
        f.tensor("output.weight", [D, VOCAB], out)


def attn(f, i, heads, kv, hd, typ="q8_0", qk_norm=False, bias=False, q_mult=1):
    b = "blk.%d." % i
    f.tensor(b + "attn_norm.weight", [D], "f32")
    f.tensor(b + "attn_q.weight", [D, heads * hd * q_mult], typ)
    f.tensor(b + "attn_k.weight", [D, kv * hd], typ)
    f.tensor(b + "attn_v.weight", [D, kv * hd], typ)
    if bias:
        for n, w in (("q", heads * hd), ("k", kv * hd), ("v", kv * hd)):
            f.tensor(b + "attn_%s.bias" % n, [w], "f32")
    if qk_norm:
        f.tensor(b + "attn_q_norm.weight", [hd], "f32")
        f.tensor(b + "attn_k_norm.weight", [hd], "f32")
    f.tensor(b + "attn_output.weight", [heads * hd, D], typ)


def dense_ffn(f, i, ff, typ="q8_0", down=None):
    b = "blk.%d." % i
    f.tensor(b + "ffn_norm.weight", [D], "f32")
    f.tensor(b + "ffn_gate.weight", [D, ff], typ)
    f.tensor(b + "ffn_up.weight", [D, ff], typ)
    f.tensor(b + "ffn_down.weight", [ff, D], down or typ)


def moe_ffn(f, i, experts, ff, up="q4_0", down="q8_0", router="f32"):
    b = "blk.%d." % i
    f.tensor(b + "ffn_norm.weight", [D], "f32")
    f.tensor(b + "ffn_gate_inp.weight", [D, experts], router)
    f.tensor(b + "ffn_gate_exps.weight", [D, ff, experts], up)
    f.tensor(b + "ffn_up_exps.weight", [D, ff, experts], up)
    f.tensor(b + "ffn_down_exps.weight", [ff, D, experts], down)


def shared_ffn(f, i, ff, typ="q8_0"):
    b = "blk.%d." % i
    f.tensor(b + "ffn_gate_shexp.weight", [D, ff], typ)
    f.tensor(b + "ffn_up_shexp.weight", [D, ff], typ)
    f.tensor(b + "ffn_down_shexp.weight", [ff, D], typ)


def qwen3moe(gguf):
    # Qwen3-30B-A3B's layout: QK-norm, no biases, 128 experts top-8 in
    # every layer; here 4 experts top-2, and a Q4_K_M-like mix: the down
    # projections q8_0 in layer 0 and q4_1 in layer 1.
    f = Fixture(gguf, "qwen3moe", "tiny qwen3moe")
    common(f, 2, 4, 2, key_length=16)
    f.key("ARCH.expert_count", 4)
    f.key("ARCH.expert_used_count", 2)
    f.key("ARCH.expert_feed_forward_length", 32)
    f.key("ARCH.feed_forward_length", 96)
    embed(f, out="q8_0")
    for i in range(2):
        attn(f, i, 4, 2, 16, qk_norm=True)
        moe_ffn(f, i, 4, 32, down="q8_0" if i == 0 else "q4_1")
    return f


def llama_dense(gguf):
    # Llama-3-style dense: GQA, f16 attention, q5_0 FFN with q8_0 down.
    f = Fixture(gguf, "llama", "tiny llama dense")
    common(f, 2, 4, 2)
    f.key("ARCH.feed_forward_length", 96)
    f.key("ARCH.rope.dimension_count", 16)
    embed(f, out="q8_0")
    for i in range(2):
        attn(f, i, 4, 2, 8, typ="f16")
        dense_ffn(f, i, 96, typ="q5_0", down="q8_0")
    return f


def llama_mixtral(gguf):
    # Mixtral-style: llama with llama.expert_count, feed_forward_length is
    # each expert's width; no head_count_kv key (llama.cpp: = head_count).
    f = Fixture(gguf, "llama", "tiny mixtral")
    common(f, 2, 4, None)
    f.key("ARCH.feed_forward_length", 32)
    f.key("ARCH.expert_count", 4)
    f.key("ARCH.expert_used_count", 2)
    embed(f, out="q8_0")
    for i in range(2):
        attn(f, i, 4, 4, 8)
        moe_ffn(f, i, 4, 32, up="q5_1", down="q5_1", router="q8_0")
    return f


def phi3(gguf):
    # Phi-3: fused attn_qkv and fused gate+up (ffn_up is 2 x n_ff); the
    # sliding_window key is present and llama.cpp ignores it.
    f = Fixture(gguf, "phi3", "tiny phi3")
    common(f, 2, 4, 4)
    f.key("ARCH.feed_forward_length", 96)
    f.key("ARCH.attention.sliding_window", 2047)
    embed(f)
    for i in range(2):
        b = "blk.%d." % i
        f.tensor(b + "attn_norm.weight", [D], "f32")
        f.tensor(b + "attn_qkv.weight", [D, 3 * D], "q8_0")
        f.tensor(b + "attn_output.weight", [D, D], "q8_0")
        f.tensor(b + "ffn_norm.weight", [D], "f32")
        f.tensor(b + "ffn_up.weight", [D, 2 * 96], "q4_0")
        f.tensor(b + "ffn_down.weight", [96, D], "q8_0")
    return f


def gemma(gguf):
    # Gemma: dense, MQA, head width 32 (q 4 x 32 = 128, not hidden), tied
    # output.
    f = Fixture(gguf, "gemma", "tiny gemma")
    common(f, 2, 4, 1, key_length=32)
    f.key("ARCH.feed_forward_length", 128)
    embed(f, tied=True)
    for i in range(2):
        attn(f, i, 4, 1, 32)
        dense_ffn(f, i, 128, typ="q4_0")
    return f


def gemma2(gguf):
    # Gemma 2: every other layer slides (llama.cpp set_swa_pattern(2):
    # layers 0, 2 slide), window from the key, post-norms, tied output.
    f = Fixture(gguf, "gemma2", "tiny gemma2")
    common(f, 4, 2, 1, key_length=32)
    f.key("ARCH.feed_forward_length", 64)
    f.key("ARCH.attention.sliding_window", 32)
    f.key("ARCH.attn_logit_softcapping", 50.0)
    f.key("ARCH.final_logit_softcapping", 30.0)
    embed(f, tied=True)
    for i in range(4):
        attn(f, i, 2, 1, 32)
        f.tensor("blk.%d.post_attention_norm.weight" % i, [D], "f32")
        dense_ffn(f, i, 64, typ="q4_0")
        f.tensor("blk.%d.post_ffw_norm.weight" % i, [D], "f32")
    return f


def gemma3(gguf):
    # Gemma 3: five sliding layers, then a full one (set_swa_pattern(6));
    # seven layers, so layer 6 slides again. Layer 0's attention is bf16,
    # the rest q8_0.
    f = Fixture(gguf, "gemma3", "tiny gemma3")
    common(f, 7, 2, 1, key_length=16)
    f.key("ARCH.feed_forward_length", 64)
    f.key("ARCH.attention.sliding_window", 512)
    embed(f, tied=True)
    for i in range(7):
        attn(f, i, 2, 1, 16, typ="bf16" if i == 0 else "q8_0", qk_norm=True)
        dense_ffn(f, i, 64, typ="q4_0")
    return f


def qwen2(gguf):
    # Qwen2 dense: q/k/v biases (1-D, not timed).
    f = Fixture(gguf, "qwen2", "tiny qwen2")
    common(f, 2, 4, 2)
    f.key("ARCH.feed_forward_length", 96)
    embed(f)
    for i in range(2):
        attn(f, i, 4, 2, 8, bias=True)
        dense_ffn(f, i, 96)
    return f


def qwen3(gguf):
    # Qwen3 dense: QK-norm, head width from key_length.
    f = Fixture(gguf, "qwen3", "tiny qwen3")
    common(f, 2, 4, 2, key_length=32)
    f.key("ARCH.feed_forward_length", 96)
    embed(f, tied=True)
    for i in range(2):
        attn(f, i, 4, 2, 32, qk_norm=True)
        dense_ffn(f, i, 96, typ="q4_0")
    return f


def qwen2moe(gguf):
    # Qwen1.5-MoE / Qwen2-57B-A14B: routed experts plus one shared expert
    # gated by ffn_gate_inp_shexp (one row: not timed).
    f = Fixture(gguf, "qwen2moe", "tiny qwen2moe")
    common(f, 2, 4, 4)
    f.key("ARCH.expert_count", 4)
    f.key("ARCH.expert_used_count", 2)
    f.key("ARCH.expert_feed_forward_length", 32)
    f.key("ARCH.expert_shared_feed_forward_length", 96)
    f.key("ARCH.feed_forward_length", 96)
    embed(f)
    for i in range(2):
        attn(f, i, 4, 4, 8, bias=True)
        moe_ffn(f, i, 4, 32)
        f.tensor("blk.%d.ffn_gate_inp_shexp.weight" % i, [D, 1], "f32")
        shared_ffn(f, i, 96)
    return f


def gpt_oss(gguf):
    # gpt-oss: sliding and full layers alternate (layer 0 slides), MXFP4
    # experts with biases, attention sinks, q wider than hidden.
    f = Fixture(gguf, "gpt-oss", "tiny gpt-oss")
    common(f, 2, 8, 2, key_length=16)
    f.key("ARCH.expert_count", 4)
    f.key("ARCH.expert_used_count", 2)
    f.key("ARCH.expert_feed_forward_length", 64)
    f.key("ARCH.feed_forward_length", 64)
    f.key("ARCH.attention.sliding_window", 128)
    embed(f)
    for i in range(2):
        b = "blk.%d." % i
        attn(f, i, 8, 2, 16, bias=True)
        f.tensor(b + "attn_output.bias", [D], "f32")
        f.tensor(b + "attn_sinks.weight", [8], "f32")
        moe_ffn(f, i, 4, 64, up="mxfp4", down="mxfp4", router="f32")
        f.tensor(b + "ffn_gate_inp.bias", [4], "f32")
        for n in ("gate", "up"):
            f.tensor(b + "ffn_%s_exps.bias" % n, [64, 4], "f32")
        f.tensor(b + "ffn_down_exps.bias", [D, 4], "f32")
    return f


def deepseek2(gguf):
    # DeepSeek-V2-Lite's layout: multi-head latent attention (no q LoRA),
    # one leading dense layer, routed experts plus shared ones.
    f = Fixture(gguf, "deepseek2", "tiny deepseek2")
    common(f, 2, 4, 4, key_length=24)
    f.kv = [(k, v) for k, v in f.kv if k != "deepseek2.attention.value_length"]
    f.key("ARCH.attention.value_length", 16)
    f.key("ARCH.attention.kv_lora_rank", 32)
    f.key("ARCH.rope.dimension_count", 8)
    f.key("ARCH.leading_dense_block_count", 1)
    f.key("ARCH.feed_forward_length", 96)
    f.key("ARCH.expert_count", 4)
    f.key("ARCH.expert_used_count", 2)
    f.key("ARCH.expert_shared_count", 1)
    f.key("ARCH.expert_feed_forward_length", 32)
    embed(f)
    for i in range(2):
        b = "blk.%d." % i
        f.tensor(b + "attn_norm.weight", [D], "f32")
        f.tensor(b + "attn_q.weight", [D, 4 * 24], "q8_0")
        f.tensor(b + "attn_kv_a_mqa.weight", [D, 32 + 8], "q8_0")
        f.tensor(b + "attn_kv_a_norm.weight", [32], "f32")
        f.tensor(b + "attn_kv_b.weight", [32, 4 * (16 + 16)], "q8_0")
        f.tensor(b + "attn_output.weight", [4 * 16, D], "q8_0")
        if i == 0:
            dense_ffn(f, i, 96)
        else:
            moe_ffn(f, i, 4, 32)
            shared_ffn(f, i, 32)
    return f


def linear_keys(f):
    f.key("ARCH.ssm.conv_kernel", 4)
    f.key("ARCH.ssm.state_size", 16)
    f.key("ARCH.ssm.group_count", 2)
    f.key("ARCH.ssm.time_step_rank", 2)
    f.key("ARCH.ssm.inner_size", 32)
    f.key("ARCH.full_attention_interval", 4)


def hybrid(gguf, arch, legacy):
    # Qwen3.5 / Qwen3-Next: three Gated DeltaNet layers, then full
    # attention with a gated query (attn_q twice as wide); routed experts
    # and one shared expert in every layer. legacy: Qwen3-Next's fused
    # ssm_in and ssm_ba instead of attn_qkv, attn_gate, ssm_beta, ssm_alpha.
    f = Fixture(gguf, arch, "tiny " + arch)
    common(f, 4, 2, 1, key_length=32)
    f.key("ARCH.expert_count", 4)
    f.key("ARCH.expert_used_count", 2)
    f.key("ARCH.expert_feed_forward_length", 32)
    f.key("ARCH.expert_shared_feed_forward_length", 32)
    f.key("ARCH.feed_forward_length", 96)
    linear_keys(f)
    embed(f)
    key_dim, value_dim, v_heads = 2 * 16, 32, 2
    for i in range(4):
        b = "blk.%d." % i
        if (i + 1) % 4 == 0:
            attn(f, i, 2, 1, 32, qk_norm=True, q_mult=2)
        else:
            f.tensor(b + "attn_norm.weight", [D], "f32")
            if legacy:
                f.tensor(b + "ssm_in.weight", [D, 2 * key_dim + 2 * value_dim], "q8_0")
                f.tensor(b + "ssm_ba.weight", [D, 2 * v_heads], "f32")
            else:
                f.tensor(b + "attn_qkv.weight", [D, 2 * key_dim + value_dim], "q8_0")
                f.tensor(b + "attn_gate.weight", [D, value_dim], "q8_0")
                f.tensor(b + "ssm_beta.weight", [D, v_heads], "f32")
                f.tensor(b + "ssm_alpha.weight", [D, v_heads], "f32")
            f.tensor(b + "ssm_conv1d.weight", [4, 2 * key_dim + value_dim], "f16")
            f.tensor(b + "ssm_dt.bias", [v_heads], "f32")
            f.tensor(b + "ssm_a", [v_heads], "f32")
            f.tensor(b + "ssm_norm.weight", [16], "f32")
            f.tensor(b + "ssm_out.weight", [value_dim, D], "q8_0")
        f.tensor(b + "post_attention_norm.weight", [D], "f32")
        moe_ffn(f, i, 4, 32, up="q4_0", down="q4_0")
        f.tensor(b + "ffn_gate_inp_shexp.weight", [D], "f32")
        shared_ffn(f, i, 32)
    return f


FIXTURES = {
    "qwen3moe.gguf": qwen3moe,
    "llama-dense.gguf": llama_dense,
    "llama-mixtral.gguf": llama_mixtral,
    "phi3.gguf": phi3,
    "gemma.gguf": gemma,
    "gemma2.gguf": gemma2,
    "gemma3.gguf": gemma3,
    "qwen2.gguf": qwen2,
    "qwen3.gguf": qwen3,
    "qwen2moe.gguf": qwen2moe,
    "gpt-oss.gguf": gpt_oss,
    "deepseek2.gguf": deepseek2,
    "qwen35moe.gguf": lambda g: hybrid(g, "qwen35moe", legacy=False),
    "qwen3next.gguf": lambda g: hybrid(g, "qwen3next", legacy=True),
}


def main(argv=None):
    default = os.path.join(os.environ.get("LLAMA_SRC", "/work/llama.cpp"), "gguf-py")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gguf-py", default=default, help="llama.cpp's gguf-py directory")
    ap.add_argument("-o", "--out", default=os.path.dirname(os.path.abspath(__file__)), help="output directory")
    args = ap.parse_args(argv)
    gguf = import_gguf(args.gguf_py)
    import logging

    logging.disable(logging.INFO)
    for name, make in FIXTURES.items():
        path = os.path.join(args.out, name)
        make(gguf).write(path)
        size = os.path.getsize(path)
        assert size < 100_000, (name, size)
        print("%-20s %6d bytes" % (name, size))


if __name__ == "__main__":
    main()
