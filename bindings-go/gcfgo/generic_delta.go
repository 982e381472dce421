package gcf

import (
	"encoding/json"

	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// GenericSet is a keyed record set, the unit generic-profile deltas operate
// on (SPEC 10a): Key names the identity column, Fields the declared column
// order, Name the tabular section of a full payload ("rows" when empty).
type GenericSet struct {
	Name   string
	Key    string
	Fields []string
	Rows   []map[string]any
}

// GenericDeltaPayload is a diff between two GenericSets (DiffGenericSets),
// serialized by EncodeGenericDelta. Removed holds identity values.
type GenericDeltaPayload struct {
	Tool        string
	Key         string
	Fields      []string
	BaseRoot    string
	NewRoot     string
	Added       []map[string]any
	Changed     []map[string]any
	Removed     []any
	DeltaTokens int
	FullTokens  int
}

// GenericSet and native.KeyedSet, GenericDeltaPayload and
// native.GenericDelta have the same fields in the same order: struct
// conversions. Values cross as JSON; keyed sets need rows (not null).

func toKeyedSet(s GenericSet) *native.KeyedSet {
	ks := native.KeyedSet(s)
	if ks.Rows == nil {
		ks.Rows = []map[string]any{}
	}
	return &ks
}

// fromKeyedSet converts libgcf's answer, whose numbers are json.Number, to
// gcf-go's int64 / float64.
func fromKeyedSet(ks *native.KeyedSet) GenericSet {
	s := GenericSet(*ks)
	s.Rows = numberRows(s.Rows)
	return s
}

func numberRows(rows []map[string]any) []map[string]any {
	for _, r := range rows {
		for k, v := range r {
			r[k] = numbers(v)
		}
	}
	return rows
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		p := jsonParser{b: []byte(x)}
		if n, err := p.number(); err == nil {
			return n
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// GenericPackRoot computes the pack root (gcf-pack-root-v1, generic
// profile, SPEC 10a.3) of a keyed set; "" for a set libgcf refuses.
func GenericPackRoot(s GenericSet) string {
	r, _ := native.GenericPackRoot(toKeyedSet(s))
	return r
}

func marshalSet(s GenericSet) ([]byte, error) {
	b, err := json.Marshal(toKeyedSet(s))
	if err != nil {
		return nil, newError("json", "invalid_input", "%v", err)
	}
	return b, nil
}

// genericDeltaJSON is libgcf's generic delta JSON.
type genericDeltaJSON struct {
	Tool        string           `json:"tool"`
	Key         string           `json:"key"`
	Fields      []string         `json:"fields"`
	BaseRoot    string           `json:"baseRoot"`
	NewRoot     string           `json:"newRoot"`
	Added       []map[string]any `json:"added"`
	Changed     []map[string]any `json:"changed"`
	Removed     []any            `json:"removed"`
	DeltaTokens int              `json:"deltaTokens"`
	FullTokens  int              `json:"fullTokens"`
}

func readDelta(b []byte) (*GenericDeltaPayload, error) {
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber()
	var w genericDeltaJSON
	if err := dec.Decode(&w); err != nil {
		return nil, newError("json", "invalid_input", "libgcf returned unexpected JSON: %v", err)
	}
	d := GenericDeltaPayload(w)
	d.Added, d.Changed = numberRows(d.Added), numberRows(d.Changed)
	for i, v := range d.Removed {
		d.Removed[i] = numbers(v)
	}
	return &d, nil
}

// DiffGenericSets computes the delta from base to next: rows added, changed
// (whole-row replacement) and identities removed, each ordered by identity.
// A schema change (another key or field list) or a missing identity key is
// a "delta_invalid" error (send a full payload instead), as are duplicate
// identities.
func DiffGenericSets(base, next GenericSet) (*GenericDeltaPayload, error) {
	if next.Key == "" {
		return nil, newError("delta", "delta_invalid", "no identity key")
	}
	b, err := marshalSet(base)
	if err != nil {
		return nil, err
	}
	n, err := marshalSet(next)
	if err != nil {
		return nil, err
	}
	out, err := native.GenericDiffJSON(b, n)
	if err != nil {
		return nil, wrap(err, "")
	}
	if string(out) == "null" {
		return nil, newError("delta", "delta_invalid", "schema change (send full)")
	}
	return readDelta(out)
}

// EncodeGenericFull writes a delta-participating full payload: pack_root=
// and key= in the header, the identity field @-marked. "" for a set libgcf
// refuses.
func EncodeGenericFull(s GenericSet, tool string) string {
	out, _ := native.EncodeGenericFull(toKeyedSet(s), tool)
	return out
}

// EncodeGenericDelta serializes a delta payload (SPEC 10a.2), sections in
// the order added, changed, removed. "" for a delta libgcf refuses.
func EncodeGenericDelta(d *GenericDeltaPayload) string {
	out, _ := native.EncodeGenericDelta(toNativeGenericDelta(d))
	return out
}

func toNativeGenericDelta(d *GenericDeltaPayload) *native.GenericDelta {
	nd := native.GenericDelta(*d)
	return &nd
}

// VerifyGenericDelta applies d to base and verifies that the result's pack
// root is expectedNewRoot (SPEC 10a.5). Atomic: on any error nothing is
// applied. Errors: base_mismatch, delta_invalid, root_mismatch.
func VerifyGenericDelta(base GenericSet, d *GenericDeltaPayload, expectedNewRoot string) (GenericSet, error) {
	claimed := *d
	claimed.NewRoot = expectedNewRoot
	wire, err := native.EncodeGenericDelta(toNativeGenericDelta(&claimed))
	if err != nil {
		return GenericSet{}, wrap(err, "")
	}
	got, err := native.ApplyGenericDelta(toKeyedSet(base), wire)
	if err != nil {
		return GenericSet{}, wrap(err, "")
	}
	return fromKeyedSet(got), nil
}

// DecodeGenericDelta parses a generic delta payload (SPEC 10a.2); apply it
// with VerifyGenericDelta.
func DecodeGenericDelta(text string) (*GenericDeltaPayload, error) {
	out, err := native.GenericDecodeDeltaJSON(text)
	if err != nil {
		return nil, wrap(err, "")
	}
	return readDelta(out)
}

// DecodeGenericFull parses a delta-participating full payload into a
// GenericSet and returns its declared pack_root: libgcf's full-payload
// reader (the fields from the table's declaration; a repeated identity is a
// "duplicate_key" error).
func DecodeGenericFull(text string) (GenericSet, string, error) {
	out, err := native.GenericDecodeFullJSON(text)
	if err != nil {
		return GenericSet{}, "", wrap(err, "")
	}
	var w struct {
		Set struct {
			Name   string           `json:"name"`
			Key    string           `json:"key"`
			Fields []string         `json:"fields"`
			Rows   []map[string]any `json:"rows"`
		} `json:"set"`
		PackRoot string `json:"packRoot"`
	}
	dec := json.NewDecoder(bytesReader(out))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return GenericSet{}, "", newError("json", "invalid_input", "libgcf returned unexpected JSON: %v", err)
	}
	s := w.Set
	return GenericSet{Name: s.Name, Key: s.Key, Fields: s.Fields, Rows: numberRows(s.Rows)}, w.PackRoot, nil
}
