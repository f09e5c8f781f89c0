package gguf

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/blsim/blsim/model"
)

// Summary writes the model as blsim sees it (Describe at ubatch) as text,
// for `blsim workloads show --gguf FILE`.
func (m *Model) Summary(w io.Writer, ubatch int) error {
	d, err := m.Describe(ubatch)
	if err != nil {
		return err
	}
	return d.WriteText(w)
}

// WriteText writes the description as text.
func (d *Description) WriteText(w io.Writer) error {
	var b strings.Builder
	name := d.Name
	if name == "" {
		name = "(no general.name)"
	}
	fmt.Fprintf(&b, "%s %q: %s, GGUF v%d, %d tensors, %s of tensor data\n", d.Arch, name, d.File, d.Version, d.Tensors, bytesStr(float64(d.DataBytes)))
	if d.Workload != nil {
		writeShape(&b, &d.Workload.Model)
		b.WriteString("\nops per layer (weights per layer):\n")
		tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
		for _, g := range d.Layers {
			ffn := "MoE"
			if g.Dense {
				ffn = "dense FFN"
			}
			fmt.Fprintf(tw, "  %s (%s, %s):\n", layerRange(g.First, g.Last), kindName(g.Kind), ffn)
			for _, o := range g.Ops {
				writeOp(tw, o)
			}
		}
		if d.OutputOp != nil {
			fmt.Fprintf(tw, "  output head:\n")
			writeOp(tw, *d.OutputOp)
		}
		tw.Flush()
	} else {
		fmt.Fprintf(&b, "not mapped to a workload: %s\n", d.Unmapped)
	}
	b.WriteString("\ntypes and bytes by tensor class:\n")
	tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  class\ttensors\tweights\tbytes\tbits/weight\t  types (share of bytes)\t\n")
	var tot ClassStats
	for _, c := range d.Classes {
		if c.Tensors == 0 {
			continue
		}
		tot.Tensors += c.Tensors
		if c.Class != Output || !d.TiedOutput {
			tot.Weights += c.Weights
			tot.Bytes += c.Bytes
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%.4g\t  %s\t\n", c.Class, c.Tensors, c.Weights, bytesStr(float64(c.Bytes)), c.BitsPerWeight(), c.Mix())
	}
	fmt.Fprintf(tw, "  total\t\t%d\t%s\t%.4g\t\t\n", tot.Weights, bytesStr(float64(tot.Bytes)), tot.BitsPerWeight())
	tw.Flush()
	if d.TiedOutput {
		b.WriteString("  (output is token_embd.weight, tied: counted once in the total)\n")
	}
	dec := d.Decode
	fmt.Fprintf(&b, "\ndecode (tg), weights read per token: %s (the KV cache comes on top)\n", bytesStr(dec.Total()))
	fmt.Fprintf(&b, "  not routed experts: %s (attention, router, dense FFN, output head, norms, one embedding row)\n", bytesStr(dec.NonExpert))
	if e := d.Experts; e != nil {
		fmt.Fprintf(&b, "  routed experts: %s (top-%d of %d in %s)\n", bytesStr(dec.Routed), e.TopK, e.Experts, plural(e.Layers, "layer"))
	}
	if dec.Shared > 0 {
		fmt.Fprintf(&b, "  shared experts: %s\n", bytesStr(dec.Shared))
	}
	if e := d.Experts; e != nil {
		fmt.Fprintf(&b, "\nrouted experts: one expert of one layer %s (gate+up %s, down %s); all %d x %d: %s\n",
			bytesStr(e.One()), bytesStr(e.GateUp), bytesStr(e.Down), e.Experts, e.Layers, bytesStr(float64(e.All)))
		fmt.Fprintf(&b, "  a ubatch of %d tokens touches %.1f of %d experts per layer (uniform routing): %s of expert weights per ubatch\n",
			e.Ubatch, e.Touched, e.Experts, bytesStr(e.TouchedBytes))
	} else {
		b.WriteString("\nno routed experts (a dense model)\n")
	}
	if len(d.Notes) > 0 {
		b.WriteString("\nnotes:\n")
		for _, n := range d.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

func writeShape(b *strings.Builder, a *model.Arch) {
	fmt.Fprintf(b, "shape: %d layers, pattern %s, hidden %d, vocab %d\n", a.Layers, a.Pattern, a.Hidden, a.Vocab)
	at := a.Attention
	fmt.Fprintf(b, "attention: %d heads, %d KV heads of %d", at.Heads, at.KVHeads, at.HeadDim)
	if at.MLA() {
		q := "queries projected directly"
		if at.QLoraRank > 0 {
			q = fmt.Sprintf("queries through a rank-%d LoRA", at.QLoraRank)
		}
		fmt.Fprintf(b, " (%d rotary), values of %d; multi-head latent: a %d-wide key-value latent a position, %s",
			at.RopeDim, at.VDim(), at.KVLoraRank, q)
	}
	if at.QGate {
		b.WriteString(", gated query")
	}
	if at.SlidingWindow > 0 {
		fmt.Fprintf(b, ", sliding window %d on S layers", at.SlidingWindow)
	}
	b.WriteString("\n")
	if l := a.Linear; l != nil && strings.Contains(a.Pattern, "L") {
		fmt.Fprintf(b, "Gated DeltaNet (L layers): in-projection %d, out-projection %d, %d value heads, key/value width %d/%d, conv %d\n",
			l.InProjOut, l.OutProjIn, l.ValueHeads, l.KeyDim, l.ValueDim, l.ConvKernel)
	}
	e := a.MoE
	switch {
	case e.DenseLayers >= a.Layers:
		fmt.Fprintf(b, "FFN: dense, %d wide in every layer\n", e.DenseFFN)
	default:
		fmt.Fprintf(b, "experts: %d routed, top-%d, FFN %d", e.Experts, e.TopK, e.ExpertFFN)
		if e.SharedExperts > 0 {
			fmt.Fprintf(b, "; %d shared of %d", e.SharedExperts, e.SharedFFN)
		}
		if e.DenseLayers > 0 {
			fmt.Fprintf(b, "; first %d layers dense, FFN %d", e.DenseLayers, e.DenseFFN)
		}
		b.WriteString("\n")
	}
}

func writeOp(tw io.Writer, o OpInfo) {
	switch o.Kind {
	case model.Matmul.String(), model.ExpertMatmul.String():
		shape := fmt.Sprintf("%d -> %d", o.In, o.Out)
		if o.Experts > 0 {
			shape = fmt.Sprintf("%d x (%d -> %d)", o.Experts, o.In, o.Out)
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s %s\t%s\n", o.Name, o.Kind, shape, o.Class, o.Type, bytesStr(o.WeightBytes))
	default:
		fmt.Fprintf(tw, "    %s\t%s\t\t\t\n", o.Name, o.Kind)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func layerRange(first, last int) string {
	if first == last {
		return fmt.Sprintf("layer %d", first)
	}
	return fmt.Sprintf("layers %d-%d", first, last)
}

func kindName(k string) string {
	switch k {
	case "F":
		return "full attention"
	case "S":
		return "sliding-window attention"
	case "L":
		return "Gated DeltaNet"
	}
	return k
}

// bytesStr formats a byte count in KiB, MiB or GiB.
func bytesStr(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
