package gcf

import (
	native "github.com/blackwell-systems/gcf-go/internal/native"
)

// GenericOptions controls optional behaviour of EncodeGeneric.
type GenericOptions struct {
	// NoFlatten asks for nested objects as attachments (or inline schemas)
	// instead of ">" path columns; both decode to the same value.
	NoFlatten bool
}

// EncodeGeneric encodes any Go value into the GCF generic profile. It panics,
// as gcf-go's does, only for a value outside the format's domain (an
// unsigned integer above math.MaxInt64); EncodeGenericChecked returns that
// error instead.
//
// Constant columns are written in every row, as gcf-go v1.7.1 writes them
// (no {field=value} factoring, which its decoder cannot read).
//
// Objects: an *OrderedMap keeps its order, a map[string]any (and any other
// map, or a struct by field name) is written in sorted key order.
func EncodeGeneric(data any, optsList ...GenericOptions) string {
	s, err := EncodeGenericChecked(data, optsList...)
	if err != nil {
		panic(err)
	}
	return s
}

// EncodeGenericChecked is EncodeGeneric returning the error: "out_of_range"
// for an integer outside int64, or what libgcf refuses.
func EncodeGenericChecked(data any, optsList ...GenericOptions) (string, error) {
	var s string
	// The value crosses in libgcf's packed form: the same value the JSON
	// form carried, without writing and parsing numbers and strings as text.
	err := withPacked(data, func(doc []byte) error {
		// gcf-go v1.7.1 writes constant columns in every row; its decoder
		// (and others of its time) cannot read the factored form
		// {id,type=user}.
		var err error
		noFlatten := len(optsList) > 0 && optsList[0].NoFlatten
		s, err = native.EncodeGenericPacked(doc, false, !noFlatten)
		return wrap(err, "")
	})
	if err != nil {
		return "", err
	}
	return s, nil
}

// DecodeGeneric parses generic-profile GCF text: objects as *OrderedMap,
// arrays as []any, integers as int64, other numbers as float64, strings,
// booleans and nil. Errors start with the spec category and carry the line
// and column (errors.As to *Error).
func DecodeGeneric(input string) (any, error) {
	packed, err := native.GenericDecodePacked(input)
	if err != nil {
		return nil, wrap(err, "")
	}
	v, ok := unpackGeneric(packed)
	if !ok {
		return nil, newError("json", "invalid_input", "libgcf returned an unexpected packed value")
	}
	return v, nil
}

// encodeGenericViaJSON is EncodeGenericChecked through the JSON form it used
// before gcf_generic_encode_packed: the tests' reference.
func encodeGenericViaJSON(data any) (string, error) {
	var s string
	err := withJSON(data, func(doc []byte) error {
		var err error
		s, err = native.EncodeGenericJSONConstantColumns(doc, false)
		return wrap(err, "")
	})
	return s, err
}

// decodeGenericViaJSON is DecodeGeneric through libgcf's JSON output, the
// form it used before gcf_generic_decode_packed: the tests' reference.
func decodeGenericViaJSON(input string) (any, error) {
	out, err := native.DecodeGenericJSON(input)
	if err != nil {
		return nil, wrap(err, "")
	}
	p := jsonParser{b: out}
	return p.value()
}

// EncodeGenericGrouped (gcf-go v1.8.0) encodes an array of uniform records
// as a value-grouped keyed set (SPEC 7.4.8): keyField is the unique identity
// column (written @-marked), groupField the low-cardinality column the
// records are clustered by. It returns an "invalid_input" error when the
// array is not a keyed set the grammar can represent: not an array of
// objects, empty, a missing or repeated key, key == group, or a record with
// a nested value.
func EncodeGenericGrouped(data any, keyField, groupField string) (string, error) {
	doc, err := toJSON(data)
	if err != nil {
		return "", err
	}
	s, err := native.EncodeGenericGroupedJSON(doc, keyField, groupField)
	return s, wrap(err, "")
}
