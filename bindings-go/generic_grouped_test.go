package gcf

import "testing"

func TestGenericConstantColumnsAndGroups(t *testing.T) {
	rows := []byte(`[{"id":1,"t":"f","s":"a"},{"id":2,"t":"f","s":"b"},{"id":3,"t":"f","s":"a"}]`)
	for _, c := range []struct {
		opts GenericOptions
		want string
	}{
		{GenericOptions{}, "GCF profile=generic\n## [3]{id,t=f,s}\n1|a\n2|b\n3|a\n"},
		{GenericOptions{NoConstantColumns: true}, "GCF profile=generic\n## [3]{id,t,s}\n1|f|a\n2|f|b\n3|f|a\n"},
		{GenericOptions{NoFlatten: true}, "GCF profile=generic\n## [3]{id,t=f,s}\n1|a\n2|b\n3|a\n"},
	} {
		if got, err := EncodeGenericJSONWithOptions(rows, c.opts); err != nil || got != c.want {
			t.Fatalf("%+v: %q %v", c.opts, got, err)
		}
	}
	if got, err := EncodeGenericJSON(rows); err != nil || got != "GCF profile=generic\n## [3]{id,t=f,s}\n1|a\n2|b\n3|a\n" {
		t.Fatalf("default: %q %v", got, err)
	}
	type rec struct {
		ID   int    `json:"id"`
		Kind string `json:"kind"`
	}
	if got, err := EncodeGenericWithOptions([]rec{{1, "x"}, {2, "x"}}, GenericOptions{NoConstantColumns: true}); err != nil ||
		got != "GCF profile=generic\n## [2]{id,kind}\n1|x\n2|x\n" {
		t.Fatalf("%q %v", got, err)
	}

	// NoFlatten: an object field as attachments, not path columns (the bytes
	// 2.5.2's and gcf-go's noFlatten write).
	nested := []byte(`[{"id":1,"owner":{"name":"x","team":"a"}},{"id":2,"owner":{"name":"y","team":"b"}}]`)
	for _, c := range []struct {
		opts GenericOptions
		want string
	}{
		{GenericOptions{}, "GCF profile=generic\n## [2]{id,\"owner>name\",\"owner>team\"}\n1|x|a\n2|y|b\n"},
		{GenericOptions{NoFlatten: true}, "GCF profile=generic\n## [2]{id,owner}\n@0 1|^\n.owner {}\n    name=x\n    team=a\n@1 2|^\n.owner {}\n    name=y\n    team=b\n"},
	} {
		if got, err := EncodeGenericJSONWithOptions(nested, c.opts); err != nil || got != c.want {
			t.Fatalf("%+v: %q %v", c.opts, got, err)
		}
	}

	const grouped = "GCF profile=generic\n## [3]{@id,t=f,s} group=s\ns=a [2]\n1\n3\ns=b [1]\n2\n"
	if got, err := EncodeGenericGroupedJSON(rows, "id", "s"); err != nil || got != grouped {
		t.Fatalf("%q %v", got, err)
	}
	if got, err := EncodeGenericGrouped([]rec{{1, "x"}, {2, "y"}}, "id", "kind"); err != nil ||
		got != "GCF profile=generic\n## [2]{@id,kind} group=kind\nkind=x [1]\n1\nkind=y [1]\n2\n" {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range [][2]string{{"t", "s"}, {"id", "id"}, {"id", "nope"}} {
		if _, err := EncodeGenericGroupedJSON(rows, bad[0], bad[1]); category(err) != "invalid_input" {
			t.Fatalf("%v: got %v", bad, err)
		}
	}
	if _, err := EncodeGenericGroupedJSON([]byte(`{"id":1}`), "id", "s"); category(err) != "invalid_input" {
		t.Fatalf("got %v", err)
	}
}
