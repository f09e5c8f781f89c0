#!/usr/bin/env python3
"""Write a random-weight, Mixtral-shaped MoE model as a GGUF file.

The file uses general.architecture "llama" with llama.expert_count and
llama.expert_used_count set (Mixtral style: every layer an MoE FFN with
merged ffn_{gate,up,down}_exps tensors and an ffn_gate_inp router), so that
llama.cpp's llama-bench can load and time it. The weights are random; only
the shapes, the quantisation and the run time matter. A minimal SentencePiece
("llama") vocabulary is included: <unk>, <s>, </s>, the 256 byte tokens and
filler pieces up to --vocab.

It uses llama.cpp's own gguf-py as a library (GGUFWriter and
gguf.quants.quantize). Point --gguf-py (or PYTHONPATH) at
<llama.cpp>/gguf-py. gguf-py imports sentencepiece at import time; when
that is missing, a stub module is written to a temporary directory, which
is enough for writing.

The output is deterministic for given arguments and seed.

Example:
    python3 scripts/llamacpp/make_moe_gguf.py -o /work/llama-data/moe-q8.gguf
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np


def import_gguf(gguf_py: str | None):
    """Import gguf-py, adding its path and a sentencepiece stub if needed."""
    if gguf_py:
        sys.path.insert(0, os.path.abspath(gguf_py))
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        stub_dir = tempfile.mkdtemp(prefix="spm-stub-")
        with open(os.path.join(stub_dir, "sentencepiece.py"), "w") as f:
            f.write(
                "# stub: gguf-py imports SentencePieceProcessor at import time;\n"
                "# writing a GGUF never uses it.\n"
                "class SentencePieceProcessor:\n"
                "    def __init__(self, *args, **kwargs):\n"
                "        raise RuntimeError('sentencepiece stub: not installed')\n"
            )
        sys.path.insert(0, stub_dir)
    import gguf  # noqa: E402

    return gguf


def parse_args(argv=None):
    default_gguf_py = os.path.join(os.environ.get("LLAMA_SRC", "/work/llama.cpp"), "gguf-py")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", default="/work/llama-data/moe-q8.gguf", help="output GGUF path")
    p.add_argument("--layers", type=int, default=8, help="transformer blocks (llama.block_count)")
    p.add_argument("--hidden", type=int, default=1024, help="model width n_embd")
    p.add_argument("--heads", type=int, default=16, help="query heads")
    p.add_argument("--kv-heads", type=int, default=4, help="key/value heads (GQA)")
    p.add_argument("--experts", type=int, default=8,
                   help="routed experts per layer; 0 writes a dense llama (ffn_gate/up/down of --expert-ffn)")
    p.add_argument("--top-k", type=int, default=2, help="experts used per token")
    p.add_argument("--expert-ffn", type=int, default=1536,
                   help="FFN width n_ff of each expert (of the dense FFN with --experts 0)")
    p.add_argument("--vocab", type=int, default=32000, help="vocabulary size (>= 259)")
    p.add_argument("--ctx", type=int, default=4096, help="llama.context_length")
    p.add_argument("--seed", type=int, default=0, help="RNG seed")
    p.add_argument("--quant", choices=["q8_0", "q4_0", "f16"], default="q8_0",
                   help="type of every 2-D/3-D weight (norms stay F32); q8_0 recommended")
    p.add_argument("--gguf-py", default=default_gguf_py,
                   help="path of llama.cpp's gguf-py (default $LLAMA_SRC/gguf-py)")
    a = p.parse_args(argv)
    if a.hidden % a.heads:
        p.error("--hidden must be a multiple of --heads")
    if a.heads % a.kv_heads:
        p.error("--heads must be a multiple of --kv-heads")
    if a.experts < 0:
        p.error("--experts must not be negative")
    if a.experts == 0:
        a.top_k = 0
    elif not 1 <= a.top_k <= a.experts:
        p.error("--top-k must be in 1..--experts")
    if a.vocab < 259 + 1:
        p.error("--vocab must be at least 260 (3 specials + 256 bytes + 1)")
    for name in ("hidden", "expert_ffn"):
        if getattr(a, name) % 32:
            p.error(f"--{name.replace('_', '-')} must be a multiple of 32 (quant block)")
    if (a.hidden // a.heads) % 2:
        p.error("head dim must be even (RoPE)")
    return a


def main(argv=None) -> int:
    a = parse_args(argv)
    gguf = import_gguf(a.gguf_py)
    Q = gguf.GGMLQuantizationType
    qtype = {"q8_0": Q.Q8_0, "q4_0": Q.Q4_0, "f16": Q.F16}[a.quant]
    ftype = {
        "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
        "q4_0": gguf.LlamaFileType.MOSTLY_Q4_0,
        "f16": gguf.LlamaFileType.MOSTLY_F16,
    }[a.quant]

    rng = np.random.default_rng(a.seed)
    head_dim = a.hidden // a.heads
    n_embd, n_ff, n_exp = a.hidden, a.expert_ffn, a.experts
    q_out = head_dim * a.heads
    kv_out = head_dim * a.kv_heads

    def weight(*shape: int) -> np.ndarray:
        """Random weight with numpy shape (..., n_out, n_in), quantised.

        The last numpy axis is the GGUF row (ne0 = n_in); values have
        standard deviation 1/sqrt(n_in) so activations stay bounded.
        """
        n_in = shape[-1]
        w = rng.standard_normal(size=shape, dtype=np.float32)
        w *= np.float32(1.0 / np.sqrt(n_in))
        return gguf.quants.quantize(w, qtype)

    def add_weight(writer, name: str, *shape: int) -> None:
        data = weight(*shape)
        writer.add_tensor(name, data, raw_dtype=qtype if qtype not in (Q.F16,) else None)

    def norm(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    out_dir = os.path.dirname(os.path.abspath(a.output))
    os.makedirs(out_dir, exist_ok=True)

    w = gguf.GGUFWriter(a.output, arch="llama")
    name = f"blsim-moe-{a.layers}L-{n_embd}d-{n_exp}x{n_ff}-top{a.top_k}-{a.quant}"
    if n_exp == 0:
        name = f"blsim-dense-{a.layers}L-{n_embd}d-{n_ff}-{a.quant}"
    w.add_name(name)
    w.add_file_type(ftype)
    w.add_context_length(a.ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(a.layers)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(a.heads)
    w.add_head_count_kv(a.kv_heads)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(1e6)
    w.add_layer_norm_rms_eps(1e-5)
    if n_exp > 0:
        w.add_expert_count(n_exp)
        w.add_expert_used_count(a.top_k)
    w.add_vocab_size(a.vocab)

    # Minimal SentencePiece vocabulary: specials, 256 byte tokens, fillers.
    tokens: list[str] = ["<unk>", "<s>", "</s>"]
    types: list[int] = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    scores: list[float] = [0.0, 0.0, 0.0]
    for b in range(256):
        tokens.append(f"<0x{b:02X}>")
        types.append(gguf.TokenType.BYTE)
        scores.append(0.0)
    for i in range(a.vocab - len(tokens)):
        tokens.append(f"\u2581t{i}")
        types.append(gguf.TokenType.NORMAL)
        scores.append(-float(i))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types([int(t) for t in types])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    t0 = time.time()
    # numpy shapes are (.., n_out, n_in); GGUF stores them reversed.
    add_weight(w, "token_embd.weight", a.vocab, n_embd)
    for i in range(a.layers):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", norm(n_embd))
        add_weight(w, p + "attn_q.weight", q_out, n_embd)
        add_weight(w, p + "attn_k.weight", kv_out, n_embd)
        add_weight(w, p + "attn_v.weight", kv_out, n_embd)
        add_weight(w, p + "attn_output.weight", n_embd, q_out)
        w.add_tensor(p + "ffn_norm.weight", norm(n_embd))
        if n_exp == 0:
            add_weight(w, p + "ffn_gate.weight", n_ff, n_embd)
            add_weight(w, p + "ffn_up.weight", n_ff, n_embd)
            add_weight(w, p + "ffn_down.weight", n_embd, n_ff)
            continue
        add_weight(w, p + "ffn_gate_inp.weight", n_exp, n_embd)
        add_weight(w, p + "ffn_gate_exps.weight", n_exp, n_ff, n_embd)
        add_weight(w, p + "ffn_up_exps.weight", n_exp, n_ff, n_embd)
        add_weight(w, p + "ffn_down_exps.weight", n_exp, n_embd, n_ff)
    w.add_tensor("output_norm.weight", norm(n_embd))
    add_weight(w, "output.weight", a.vocab, n_embd)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

    size = os.path.getsize(a.output)
    n_params = (
        2 * a.vocab * n_embd
        + a.layers * (n_embd * (2 * q_out + 2 * kv_out) + n_exp * n_embd + 3 * max(n_exp, 1) * n_ff * n_embd + 2 * n_embd)
        + n_embd
    )
    print(f"wrote {a.output}: {name}, {n_params / 1e6:.1f} M params, "
          f"{size} bytes ({size / 2**20:.1f} MiB) in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
