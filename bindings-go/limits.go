package gcf

/*
#include <gcf.h>
*/
import "C"

// Limits are decode limits (spec §12) for DecodeWithLimits,
// DecodeGenericWithLimits, DecodeGenericJSONWithLimits and the delta
// appliers ApplyDeltaWithLimits, ApplyGenericDeltaWithLimits and
// ApplyGenericDeltaJSONWithLimits. The zero value is
// the defaults: each field left 0 keeps its default (so 1 is the smallest
// limit that can be set). Input past a limit is an *Error of category
// limit_exceeded at its line; a value no decoder takes (MaxDepth above 128)
// is an *Error with StatusInvalidArgument and category usage, whose message
// names the field as the C struct does (max_depth).
type Limits struct {
	// MaxDepth is the nesting depth of objects and arrays, 1 to 128 (the default).
	MaxDepth uint64
	// MaxContainerLen bounds the elements of one array or object, the rows
	// of a table, the symbols or edges of a graph (default 100,000,000).
	MaxContainerLen uint64
	// MaxLineLen bounds the bytes of one line (default 64 MiB).
	MaxLineLen uint64
	// MaxFields bounds the fields of one tabular header (default 65,536).
	MaxFields uint64
	// MaxInputLen bounds the bytes of input (default: no limit).
	MaxInputLen uint64
	// MaxExpansion is the fixed part of the budget for values written once
	// and decoded into every row (constant columns, groups), in bytes
	// (default 64 MiB).
	MaxExpansion uint64
	// MaxExpansionRatio is its part per byte of input (default 64).
	MaxExpansionRatio uint64
}

func (l Limits) c() C.gcf_limits {
	return C.gcf_limits{
		max_depth:           C.uint64_t(l.MaxDepth),
		max_container_len:   C.uint64_t(l.MaxContainerLen),
		max_line_len:        C.uint64_t(l.MaxLineLen),
		max_fields:          C.uint64_t(l.MaxFields),
		max_input_len:       C.uint64_t(l.MaxInputLen),
		max_expansion:       C.uint64_t(l.MaxExpansion),
		max_expansion_ratio: C.uint64_t(l.MaxExpansionRatio),
	}
}
