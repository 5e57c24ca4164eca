// Package jsontest helps tests check that a verdict depends on JSON
// values, not on how they were written.
package jsontest

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Respace writes v (as decoded with UseNumber) as JSON again with keys in
// reverse order and unusual but valid whitespace: the same value in other
// bytes, still on one line.
func Respace(v any) []byte {
	var b bytes.Buffer
	respace(&b, v)
	return b.Bytes()
}

func respace(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		b.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" ,\t")
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteString(" :  ")
			respace(b, x[k])
		}
		b.WriteString("\t}")
	case []any:
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(" , ")
			}
			respace(b, e)
		}
		b.WriteString(" ]")
	default:
		q, _ := json.Marshal(x)
		b.Write(q)
	}
}

// Decode reads one JSON value with numbers kept as json.Number.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
