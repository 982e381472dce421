package gcf

import (
	"bytes"
	"strings"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// fullAsDelta rewrites a full keyed payload as the delta against the empty
// set that adds its rows, line for line (so error positions still point at
// the caller's text): the header becomes a delta header with the same key,
// the section header "## <name> [N]{...}" becomes "## added [N]{...}".
func fullAsDelta(text string) (name, root, key, delta string, err error) {
	lines := strings.SplitAfter(text, "\n")
	header := strings.TrimRight(lines[0], "\r\n")
	fields := map[string]string{}
	for _, tok := range strings.Fields(header) {
		if i := strings.IndexByte(tok, '='); i > 0 {
			fields[tok[:i]] = tok[i+1:]
		}
	}
	if !strings.HasPrefix(header, "GCF ") || fields["profile"] != "generic" {
		return "", "", "", "", newError("syntax", "missing_profile", "not a generic payload: %q", header)
	}
	if fields["delta"] == "true" {
		return "", "", "", "", newError("delta", "malformed_delta", "a delta payload is not a full payload")
	}
	root, key = fields["pack_root"], fields["key"]
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "##! ") {
			continue
		}
		b := strings.IndexByte(l, '[')
		if b < 0 {
			break
		}
		name = strings.TrimSpace(l[3:b])
		if key == "" {
			key = markedField(l[b:])
		}
		lines[i] = "## added " + l[b:]
		break
	}
	lines[0] = "GCF profile=generic delta=true base_root=sha256:0 new_root=sha256:0 key=" + key + "\n"
	return name, root, key, strings.Join(lines, ""), nil
}

// markedField is the @-marked field of a declaration "[N]{a,@id,b}".
func markedField(decl string) string {
	open := strings.IndexByte(decl, '{')
	end := strings.LastIndexByte(decl, '}')
	if open < 0 || end < open {
		return ""
	}
	for _, f := range strings.Split(decl[open+1:end], ",") {
		if f = strings.TrimSpace(f); strings.HasPrefix(f, "@") {
			return strings.Trim(f[1:], `"`)
		}
	}
	return ""
}
