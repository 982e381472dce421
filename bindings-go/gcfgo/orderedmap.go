package gcf

import (
	"bytes"
	"encoding/json"
)

// OrderedMap is a JSON object that keeps its keys in insertion order.
// DecodeGeneric and ParseJSONOrdered return objects as *OrderedMap, and
// EncodeGeneric writes an *OrderedMap's members in its order (a
// map[string]any's in sorted order).
//
// Keys and values are kept in two parallel slices; a hash index is built
// only once a map grows past a few keys, so the many small objects a decode
// produces cost two allocations, not a Go map each.
type OrderedMap struct {
	keys   []string
	values []any
	index  map[string]int
}

// indexFrom is the size at which lookups switch from a scan to the index.
const indexFrom = 12

// NewOrderedMap creates an empty OrderedMap.
func NewOrderedMap() *OrderedMap {
	return &OrderedMap{}
}

func newOrderedMapCap(n int) *OrderedMap {
	return &OrderedMap{keys: make([]string, 0, n), values: make([]any, 0, n)}
}

func (m *OrderedMap) find(key string) int {
	if m.index != nil {
		if i, ok := m.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range m.keys {
		if k == key {
			return i
		}
	}
	if len(m.keys) >= indexFrom {
		m.index = make(map[string]int, len(m.keys))
		for i, k := range m.keys {
			m.index[k] = i
		}
	}
	return -1
}

// Set adds or updates a key-value pair; a new key goes last.
func (m *OrderedMap) Set(key string, value any) {
	if i := m.find(key); i >= 0 {
		m.values[i] = value
		return
	}
	if m.index != nil {
		m.index[key] = len(m.keys)
	}
	m.keys = append(m.keys, key)
	m.values = append(m.values, value)
}

// Get retrieves a value by key.
func (m *OrderedMap) Get(key string) (any, bool) {
	if i := m.find(key); i >= 0 {
		return m.values[i], true
	}
	return nil, false
}

// Keys returns the keys in insertion order.
func (m *OrderedMap) Keys() []string { return m.keys }

// Len returns the number of entries.
func (m *OrderedMap) Len() int { return len(m.keys) }

// ToMap converts to a plain map[string]any, recursively (order is lost).
func (m *OrderedMap) ToMap() map[string]any {
	out := make(map[string]any, len(m.keys))
	for i, k := range m.keys {
		out[k] = plain(m.values[i])
	}
	return out
}

func plain(v any) any {
	switch x := v.(type) {
	case *OrderedMap:
		return x.ToMap()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// MarshalJSON writes the object with its members in order.
func (m *OrderedMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		vj, err := json.Marshal(m.values[i])
		if err != nil {
			return nil, err
		}
		b.Write(vj)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ParseJSONOrdered parses the first JSON value of data, objects as
// *OrderedMap (keys in document order), integers without fraction or
// exponent as int64 (an integer beyond int64 is an "out_of_range" error),
// other numbers as float64. An empty array is a nil []any, as in gcf-go.
func ParseJSONOrdered(data []byte) (any, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
		return nil, err
	}
	p := jsonParser{b: raw, nilEmptyArrays: true}
	return p.value()
}
