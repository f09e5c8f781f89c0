#!/usr/bin/env python3
"""Record which GGML type llama-quantize gives each tensor, per scheme.

Writes small F16 models of each architecture blsim maps (widths that are
multiples of 256, one that is not, 80 layers for llama.cpp's 70B rule, 8
experts for Mixtral's rules), with the keys and tensor names llama.cpp's
loader reads and the layout convert_hf_to_gguf.py writes (2-D weights F16,
norms, biases and routers F32), quantizes each with llama-quantize of the
llama.cpp checkout given (c392e50, b4748) for every scheme, with and
without an importance matrix, and records each output's tensor types in
MODEL.tsv: the ground truth of package quantize's rules test. It also
keeps the header of some quantized files (MODEL-SCHEME.gguf, truncated
where the tensor data starts: a few KB) and each model's config.json,
which the hfconfig package's tests build the same model from.

Usage (from the repository root; Debian's python3 with numpy):
    python3 quantize/testdata/llamacpp-quantize/make.py \
        [--llama /work/llama.cpp] [--keep-headers hfconfig/testdata/llamacpp]

The output is deterministic.
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

SCHEMES = ["F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L",
           "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K", "IQ4_NL", "IQ4_XS", "IQ3_XS",
           "IQ3_S", "IQ3_M", "TQ1_0", "TQ2_0"]
# Only with an importance matrix (llama-quantize refuses them without: IQ3_XXS
# too, whose attn_k is IQ2_S),
# and the schemes whose rules look at one.
IMATRIX = ["IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ1_S", "IQ1_M", "Q2_K_S", "Q4_0", "Q5_0", "IQ4_XS",
           "IQ4_NL", "IQ3_XXS"]
HEADERS = ["Q4_0", "Q4_K_M", "Q8_0", "IQ4_XS"]


# Qwen3 and Qwen3-MoE came to llama.cpp after c392e50 (2025-04), so this
# build cannot quantize them; their tensors take the same rules by name.
# Each model: the HF config.json keys (as a model card lists them) and
# llama.cpp's architecture. The GGUF is written from these alone.
MODELS = {
    "llama-gqa4": ("llama", {"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 16, "hidden_size": 256,
                             "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 512,
                             "vocab_size": 512, "tie_word_embeddings": False}),
    "llama-tied": ("llama", {"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 8, "hidden_size": 256,
                             "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 768,
                             "vocab_size": 256, "tie_word_embeddings": True}),
    "llama-80": ("llama", {"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 80, "hidden_size": 256,
                           "num_attention_heads": 8, "num_key_value_heads": 1, "intermediate_size": 256,
                           "vocab_size": 256, "tie_word_embeddings": False}),
    "mixtral": ("llama", {"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 8, "hidden_size": 256,
                          "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 256,
                          "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 256,
                          "tie_word_embeddings": False}),
    "qwen2-384": ("qwen2", {"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 8, "hidden_size": 384,
                            "num_attention_heads": 6, "num_key_value_heads": 2, "intermediate_size": 1024,
                            "vocab_size": 256, "tie_word_embeddings": True}),
    "phi3": ("phi3", {"architectures": ["Phi3ForCausalLM"], "num_hidden_layers": 8, "hidden_size": 256,
                      "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 512,
                      "vocab_size": 512, "tie_word_embeddings": False, "sliding_window": 2047}),
    "gemma2": ("gemma2", {"architectures": ["Gemma2ForCausalLM"], "num_hidden_layers": 8, "hidden_size": 256,
                          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 256,
                          "intermediate_size": 512, "vocab_size": 256, "sliding_window": 4096}),
}


def layout(arch, c):
    """The keys and tensors (name, ne, f16|f32) convert_hf_to_gguf.py writes."""
    L, D, H = c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"]
    KV = c.get("num_key_value_heads", H)
    hd = c.get("head_dim", D // H)
    FF, V = c["intermediate_size"], c["vocab_size"]
    E = c.get("num_local_experts", c.get("num_experts", 0))
    tied = c.get("tie_word_embeddings", arch == "gemma2")
    kv = [("ARCH.block_count", L), ("ARCH.context_length", 4096), ("ARCH.embedding_length", D),
          ("ARCH.feed_forward_length", FF), ("ARCH.attention.head_count", H), ("ARCH.attention.head_count_kv", KV),
          ("ARCH.attention.layer_norm_rms_epsilon", 1e-6), ("ARCH.rope.freq_base", 10000.0),
          ("ARCH.vocab_size", V)]
    if hd != D // H:
        kv += [("ARCH.attention.key_length", hd), ("ARCH.attention.value_length", hd)]
    if E:
        kv += [("ARCH.expert_count", E), ("ARCH.expert_used_count", c["num_experts_per_tok"])]
        if "moe_intermediate_size" in c:
            kv += [("ARCH.expert_feed_forward_length", c["moe_intermediate_size"])]
    if arch == "gemma2":
        kv += [("ARCH.attention.sliding_window", c["sliding_window"]), ("ARCH.attn_logit_softcapping", 50.0),
               ("ARCH.final_logit_softcapping", 30.0)]
    if arch == "phi3":
        kv += [("ARCH.attention.sliding_window", c["sliding_window"]), ("ARCH.rope.dimension_count", hd)]
    t = [("token_embd.weight", [D, V], "f16"), ("output_norm.weight", [D], "f32")]
    if not tied:
        t.append(("output.weight", [D, V], "f16"))
    for i in range(L):
        b = "blk.%d." % i
        t.append((b + "attn_norm.weight", [D], "f32"))
        if arch == "phi3":
            t.append((b + "attn_qkv.weight", [D, H * hd + 2 * KV * hd], "f16"))
        else:
            t += [(b + "attn_q.weight", [D, H * hd], "f16"), (b + "attn_k.weight", [D, KV * hd], "f16"),
                  (b + "attn_v.weight", [D, KV * hd], "f16")]
        if arch == "qwen2":
            t += [(b + "attn_q.bias", [H * hd], "f32"), (b + "attn_k.bias", [KV * hd], "f32"),
                  (b + "attn_v.bias", [KV * hd], "f32")]
        if arch in ("qwen3", "qwen3moe"):
            t += [(b + "attn_q_norm.weight", [hd], "f32"), (b + "attn_k_norm.weight", [hd], "f32")]
        t.append((b + "attn_output.weight", [H * hd, D], "f16"))
        if arch == "gemma2":
            t.append((b + "post_attention_norm.weight", [D], "f32"))
        t.append((b + "ffn_norm.weight", [D], "f32"))
        if E:
            EF = c.get("moe_intermediate_size", FF)
            t += [(b + "ffn_gate_inp.weight", [D, E], "f32"), (b + "ffn_gate_exps.weight", [D, EF, E], "f16"),
                  (b + "ffn_up_exps.weight", [D, EF, E], "f16"), (b + "ffn_down_exps.weight", [EF, D, E], "f16")]
        elif arch == "phi3":
            t += [(b + "ffn_up.weight", [D, 2 * FF], "f16"), (b + "ffn_down.weight", [FF, D], "f16")]
        else:
            t += [(b + "ffn_gate.weight", [D, FF], "f16"), (b + "ffn_up.weight", [D, FF], "f16"),
                  (b + "ffn_down.weight", [FF, D], "f16")]
        if arch == "gemma2":
            t.append((b + "post_ffw_norm.weight", [D], "f32"))
    return kv, t


def write_f16(gguf, path, arch, name, c):
    kv, tensors = layout(arch, c)
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", name)
    w.add_uint32("general.file_type", 1)
    for k, v in kv:
        k = k.replace("ARCH", arch)
        if isinstance(v, float):
            w.add_float32(k, v)
        else:
            w.add_uint32(k, v)
    rng = np.random.RandomState(7)
    for n, ne, typ in tensors:
        shape = list(reversed(ne))
        a = rng.standard_normal(shape).astype(np.float32) * 0.02
        w.add_tensor(n, a if typ == "f32" else a.astype(np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return tensors


def write_imatrix(path, tensors):
    entries = [(n, ne) for n, ne, typ in tensors if typ == "f16"]
    with open(path, "wb") as f:
        f.write(struct.pack("<i", len(entries)))
        for n, ne in entries:
            nval = ne[0] * (ne[2] if len(ne) > 2 else 1)
            b = n.encode()
            f.write(struct.pack("<i", len(b)) + b + struct.pack("<ii", 1, nval))
            f.write(np.ones(nval, dtype=np.float32).tobytes())
        f.write(struct.pack("<ii", 1, 4) + b"none")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llama", default="/work/llama.cpp")
    ap.add_argument("--keep-headers", default="hfconfig/testdata/llamacpp")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--only", nargs="*", help="the models to write (default: all)")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.llama, "gguf-py"))
    try:
        import sentencepiece  # noqa: F401
    except ImportError:  # gguf-py imports it; writing needs none of it
        stub = tempfile.mkdtemp(prefix="spm-stub-")
        with open(os.path.join(stub, "sentencepiece.py"), "w") as f:
            f.write("class SentencePieceProcessor:\n    pass\n")
        sys.path.insert(0, stub)
    import gguf  # noqa: E402
    quantize = os.path.join(args.llama, "build", "bin", "llama-quantize")
    os.makedirs(args.keep_headers, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="blsim-quantize-")
    for name, (arch, c) in MODELS.items():
        if args.only and name not in args.only:
            continue
        src = os.path.join(tmp, name + "-f16.gguf")
        tensors = write_f16(gguf, src, arch, name, c)
        imat = os.path.join(tmp, name + ".imatrix")
        write_imatrix(imat, tensors)
        with open(os.path.join(args.keep_headers, name + ".json"), "w") as f:
            json.dump(c, f, indent=2, sort_keys=True)
            f.write("\n")
        cols = [(s, False) for s in SCHEMES] + [(s, True) for s in IMATRIX]
        types = {}
        for s, im in cols:
            out = os.path.join(tmp, "%s-%s%s.gguf" % (name, s, "-imatrix" if im else ""))
            cmd = [quantize] + (["--imatrix", imat] if im else []) + [src, out, s, "1"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("%s failed:\n%s" % (" ".join(cmd), r.stdout[-2000:] + r.stderr[-2000:]))
            rd = gguf.GGUFReader(out)
            types[(s, im)] = {t.name: t.tensor_type.name.lower() for t in rd.tensors}
            if s in HEADERS and not im:
                keep = os.path.join(args.keep_headers, "%s-%s.gguf" % (name, s))
                with open(out, "rb") as f:
                    data = f.read(rd.data_offset)
                with open(keep, "wb") as f:
                    f.write(data)
            os.remove(out)
        heads = c["num_attention_heads"]
        with open(os.path.join(args.out, name + ".tsv"), "w") as f:
            f.write("# %s: llama-quantize (llama.cpp c392e50) of a small F16 %s; make.py writes it\n" % (name, arch))
            f.write("# arch=%s layers=%d heads=%d kv_heads=%d experts=%d\n" % (
                arch, c["num_hidden_layers"], heads, c.get("num_key_value_heads", heads),
                c.get("num_local_experts", c.get("num_experts", 0))))
            f.write("\t".join(["tensor", "dims", "input"] + [s + ("+imatrix" if im else "") for s, im in cols]) + "\n")
            for n, ne, typ in tensors:
                f.write("\t".join([n, "x".join(str(d) for d in ne), typ] + [types[k][n] for k in cols]) + "\n")
        os.remove(src)
        print("wrote", name)


if __name__ == "__main__":
    main()
