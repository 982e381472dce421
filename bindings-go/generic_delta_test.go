package gcf

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
)

func orders() *KeyedSet {
	return &KeyedSet{
		Name: "orders", Key: "id", Fields: []string{"id", "total", "status", "customer"},
		Rows: []map[string]any{
			{"id": 1001, "total": 59.98, "status": "shipped", "customer": "Alice"},
			{"id": 1002, "total": 29.99, "status": "pending", "customer": "Bob"},
			{"id": 1003, "total": 129.5, "status": "shipped", "customer": "Carol"},
		},
	}
}

const (
	ordersRoot  = "sha256:457e7c31e62e070a039b5cde9ea3edff6330e5913874e1165afddbcf6798eb7c"
	ordersRoot2 = "sha256:ebe554601676e61cd522a5dc13d78499fd20e730353eb3e0b18c7fdc088f0f05"
)

// statusSet is a keyed set {id, status} of n rows, all "open" but row 7.
func statusSet(n int, statusOf7 string) *KeyedSet {
	set := &KeyedSet{Key: "id", Fields: []string{"id", "status"}}
	for i := 0; i < n; i++ {
		status := "open"
		if i == 7 {
			status = statusOf7
		}
		set.Rows = append(set.Rows, map[string]any{"id": i, "status": status})
	}
	return set
}

func TestGenericFullDeltaApply(t *testing.T) {
	full, err := EncodeGenericFull(orders(), "orders_query")
	want := "GCF profile=generic tool=orders_query pack_root=" + ordersRoot + " key=id\n" +
		"## orders [3]{@id,total,status,customer}\n1001|59.98|shipped|Alice\n1002|29.99|pending|Bob\n1003|129.5|shipped|Carol\n"
	if err != nil || full != want {
		t.Fatalf("%v\n%q\nwant\n%q", err, full, want)
	}
	if untitled, err := EncodeGenericFull(orders(), ""); err != nil || !strings.HasPrefix(untitled, "GCF profile=generic pack_root=") {
		t.Fatalf("%q %v", untitled, err)
	}

	delta := &GenericDelta{
		Tool: "orders_query", Key: "id", Fields: []string{"id", "total", "status", "customer"},
		BaseRoot: ordersRoot, NewRoot: ordersRoot2,
		Added:       []map[string]any{{"id": 1004, "total": 75.00, "status": "pending", "customer": "Dave"}},
		Changed:     []map[string]any{{"id": 1002, "total": 29.99, "status": "shipped", "customer": "Bob"}},
		Removed:     []any{1001},
		DeltaTokens: 30, FullTokens: 160,
	}
	wire, err := EncodeGenericDelta(delta)
	wantWire := "GCF profile=generic tool=orders_query delta=true base_root=" + ordersRoot + " new_root=" + ordersRoot2 +
		" key=id savings=81%\n## added [1]{@id,total,status,customer}\n1004|75|pending|Dave\n" +
		"## changed [1]{@id,total,status,customer}\n1002|29.99|shipped|Bob\n## removed [1]{@id}\n1001\n"
	if err != nil || wire != wantWire {
		t.Fatalf("%v\n%q\nwant\n%q", err, wire, wantWire)
	}

	applied, err := ApplyGenericDelta(orders(), wire)
	if err != nil {
		t.Fatal(err)
	}
	if applied.Name != "orders" || applied.Key != "id" || len(applied.Fields) != 4 {
		t.Fatalf("%+v", applied)
	}
	var ids []string
	for _, r := range applied.Rows {
		ids = append(ids, r["id"].(json.Number).String())
	}
	sort.Strings(ids)
	if fmt.Sprint(ids) != "[1002 1003 1004]" {
		t.Fatalf("ids %v", ids)
	}
	if root, err := GenericPackRoot(applied); err != nil || root != ordersRoot2 {
		t.Fatalf("%s %v", root, err)
	}
	// Integers beyond 2^53 survive the round trip exactly.
	big := &KeyedSet{Key: "id", Fields: []string{"id"}, Rows: []map[string]any{{"id": json.Number("9223372036854775807")}}}
	same, err := ApplyGenericDelta(big, emptyDelta(t, big))
	if err != nil || same.Rows[0]["id"].(json.Number) != "9223372036854775807" {
		t.Fatalf("%+v %v", same, err)
	}
}

// emptyDelta is an empty delta from set to itself.
func emptyDelta(t *testing.T, set *KeyedSet) string {
	t.Helper()
	root, err := GenericPackRoot(set)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := EncodeGenericDelta(&GenericDelta{Key: set.Key, Fields: set.Fields, BaseRoot: root, NewRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	return wire
}

func TestGenericDeltaErrors(t *testing.T) {
	wire := emptyDelta(t, orders())
	// Against another base: base_mismatch, a data error.
	_, err := ApplyGenericDelta(statusSet(3, "open"), wire)
	var e *Error
	if !errors.As(err, &e) || e.Category() != "base_mismatch" || e.Status() != StatusDataError {
		t.Fatalf("got %v", err)
	}
	_, err = ApplyGenericDelta(orders(), "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n## bogus [1]{@id}\n1\n")
	if !errors.As(err, &e) || e.Category() != "malformed_delta" || e.Line() != 2 {
		t.Fatalf("got %v", err)
	}
	_, err = ApplyGenericDelta(orders(), "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n## added [1]{@id,total}\n1|2\n3|4\n")
	if category(err) != "count_mismatch" {
		t.Fatalf("got %v", err)
	}
	if _, err := ApplyGenericDeltaJSON([]byte(`{"key":`), wire); category(err) != "json" || err.(*Error).Status() != StatusJSONError {
		t.Fatalf("got %v", err)
	}
	if _, err := EncodeGenericDeltaJSON([]byte(`{"removed":[18446744073709551616]}`)); category(err) != "out_of_range" {
		t.Fatalf("got %v", err)
	}
	if _, err := EncodeGenericFull(orders(), "two words"); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
	if _, err := EncodeGenericFull(nil, ""); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
	// Nil rows are an empty set, not a missing one.
	if _, err := EncodeGenericFull(&KeyedSet{Key: "id", Fields: []string{"id"}}, ""); err != nil {
		t.Fatal(err)
	}
}

func TestGenericRespond(t *testing.T) {
	outcome, text, err := GenericRespond(nil, orders(), "orders_query")
	if err != nil || outcome != OutcomeFull || !strings.Contains(text, "pack_root="+ordersRoot) {
		t.Fatalf("%d %q %v", outcome, text, err)
	}
	outcome, text, err = GenericRespond(orders(), orders(), "")
	if err != nil || outcome != OutcomeUnchanged || text != "GCF profile=generic unchanged=true pack_root="+ordersRoot+" count=3\n" {
		t.Fatalf("%d %q %v", outcome, text, err)
	}
	held, current := statusSet(40, "open"), statusSet(40, "shipped")
	outcome, text, err = GenericRespond(held, current, "")
	if err != nil || outcome != OutcomeDelta || !strings.HasSuffix(text, "## changed [1]{@id,status}\n7|shipped\n") {
		t.Fatalf("%d %q %v", outcome, text, err)
	}
	applied, err := ApplyGenericDelta(held, text)
	r1, _ := GenericPackRoot(applied)
	r2, _ := GenericPackRoot(current)
	if err != nil || r1 != r2 {
		t.Fatalf("%s %s %v", r1, r2, err)
	}
	// A schema change is answered in full.
	if outcome, _, err := GenericRespond(orders(), current, ""); err != nil || outcome != OutcomeFull {
		t.Fatalf("%d %v", outcome, err)
	}
	if _, _, err := GenericRespondJSON([]byte("[1"), []byte(`{"key":"id","rows":[]}`), ""); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
}

// A set Go cannot marshal (a NaN) is a failed turn too: turn 3 is a delta
// and turn 4 re-anchors with n = 2, as in gcf-go.
func TestGenericDeltaSessionCountsASetItCannotSend(t *testing.T) {
	open, shipped := statusSet(40, "open"), statusSet(40, "shipped")
	s, err := NewGenericDeltaSession(open, "t", ReanchorFixedN(2))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, full, err := s.Next(shipped); err != nil || full {
		t.Fatalf("turn 1: %v %v", full, err)
	}
	bad := statusSet(40, "open")
	bad.Rows[3]["status"] = math.NaN()
	if _, _, err := s.Next(bad); category(err) != "invalid_input" {
		t.Fatalf("turn 2: got %v", err)
	}
	if _, full, err := s.Next(open); err != nil || full {
		t.Fatalf("turn 3 is a delta: %v %v", full, err)
	}
	if _, full, err := s.Next(shipped); err != nil || !full {
		t.Fatalf("turn 4 re-anchors: %v %v", full, err)
	}
}

func TestGenericDeltaSession(t *testing.T) {
	open, shipped := statusSet(40, "open"), statusSet(40, "shipped")
	s, err := NewGenericDeltaSession(open, "t", ReanchorFixedN(2))
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.InitialFull()
	if err != nil || !strings.HasPrefix(first, "GCF profile=generic tool=t pack_root=") {
		t.Fatalf("%q %v", first, err)
	}
	wire, full, err := s.Next(shipped)
	if err != nil || full || !strings.Contains(wire, " delta=true ") {
		t.Fatalf("%q %v %v", wire, full, err)
	}
	// A failing update leaves the held set where it was, and counts as
	// turn 2, as gcf-go counts it: turn 3 is a delta, turn 4 re-anchors.
	if _, _, err := s.NextJSON([]byte(`{"key":"id","rows":[{"id":18446744073709551616}]}`)); category(err) != "out_of_range" {
		t.Fatalf("got %v", err)
	}
	wire, full, err = s.Next(open)
	if err != nil || full || !strings.Contains(wire, " delta=true ") {
		t.Fatalf("turn 3 is a delta: %q %v %v", wire, full, err)
	}
	wire, full, err = s.Next(open)
	if err != nil || !full || wire != first {
		t.Fatalf("turn 4 re-anchors: %q %v %v", wire, full, err)
	}
	s.Close()
	s.Close()
	if _, _, err := s.Next(open); category(err) != "invalid_state" {
		t.Fatalf("got %v", err)
	}
	if _, err := s.InitialFull(); category(err) != "invalid_state" {
		t.Fatalf("got %v", err)
	}

	if _, err := NewGenericDeltaSession(open, "", ReanchorFixedN(-1)); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
	if _, err := NewGenericDeltaSessionJSON([]byte(`{"rows":[]}`), "", ReanchorSizeGuard()); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
}

// One session from many goroutines: every call sees a consistent session.
func TestGenericDeltaSessionConcurrentUse(t *testing.T) {
	open, shipped := statusSet(200, "open"), statusSet(200, "shipped")
	s, err := NewGenericDeltaSession(open, "", ReanchorSizeGuard())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	fulls, turns := 0, 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				set := open
				if (g+i)%2 == 0 {
					set = shipped
				}
				_, full, err := s.Next(set)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				turns++
				if full {
					fulls++
				}
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	if turns != 80 || fulls == 0 || fulls == turns {
		t.Fatalf("%d full payloads in %d turns", fulls, turns)
	}
}
