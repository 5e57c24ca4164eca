package suite

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Object is a JSON object as its members sorted by name. A suite holds
// one for every expected tool call, so it is kept smaller than a map (a
// third of the memory for a typical call) and compared member by member
// without hashing. Nested objects are Objects too; arrays are []any and
// scalars are string, json.Number, bool or nil.
type Object []Member

// Member is one name and value of an Object.
type Member struct {
	Name  string
	Value any
}

// NewObject turns a decoded map, and every map inside it, into Objects.
func NewObject(m map[string]any) Object {
	o := make(Object, 0, len(m))
	for name, v := range m {
		o = append(o, Member{name, FromTree(v)})
	}
	o.Sort()
	return o
}

// FromTree returns v with every map inside it turned into an Object.
func FromTree(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return NewObject(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = FromTree(e)
		}
		return out
	}
	return v
}

// Sort orders members built up in any order by name. Names must be
// unique.
func (o Object) Sort() {
	slices.SortFunc(o, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
}

// Get returns the value of the member name.
func (o Object) Get(name string) (any, bool) {
	if len(o) <= 8 { // most objects are small; a scan beats a search
		for _, m := range o {
			if m.Name == name {
				return m.Value, true
			}
		}
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(o, name, func(m Member, name string) int { return strings.Compare(m.Name, name) })
	if !ok {
		return nil, false
	}
	return o[i].Value, true
}

// Map returns o as a map, with every Object inside it a map too, for
// code that walks decoded JSON generically.
func (o Object) Map() map[string]any {
	m := make(map[string]any, len(o))
	for _, mem := range o {
		m[mem.Name] = ToTree(mem.Value)
	}
	return m
}

// ToTree returns v with every Object inside it turned into a map.
func ToTree(v any) any {
	switch v := v.(type) {
	case Object:
		return v.Map()
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = ToTree(e)
		}
		return out
	}
	return v
}

// MarshalJSON writes o as encoding/json writes the same map: members in
// name order. HTML escaping is left to the encoder that calls it.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o.Map()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
