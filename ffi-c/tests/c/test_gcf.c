/* C tests for libgcf: every entry point, its error paths, and a 10^6-row
 * stream. Build and run (scripts/test-ffi.sh does this under valgrind):
 *   cc -Wall -Wextra -Werror -std=c11 -Iinclude ffi-c/tests/c/test_gcf.c \
 *      target/release/libgcf.a -lpthread -ldl -lm -o test_gcf && ./test_gcf
 * The last line is "N passed, N failed"; the exit code is non-zero on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcf.h"

static int passed = 0;
static int failed = 0;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (cond) {                                                              \
      passed++;                                                              \
    } else {                                                                 \
      failed++;                                                              \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
    }                                                                        \
  } while (0)

#define S(lit) (const uint8_t *)(lit), (sizeof(lit) - 1)

static int str_eq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static int buf_eq(const gcf_buf *b, const char *text) {
  size_t n = strlen(text);
  return b->len == n && b->ptr != NULL && memcmp(b->ptr, text, n) == 0 && b->ptr[n] == 0;
}

/* Checks an error's status and category, then frees it. */
static void expect_error(gcf_status got, gcf_error *err, gcf_status want, const char *category) {
  CHECK(got == want);
  CHECK(err != NULL);
  if (err == NULL) return;
  CHECK(gcf_error_status(err) == want);
  CHECK(str_eq(gcf_error_category(err), category));
  if (!str_eq(gcf_error_category(err), category))
    fprintf(stderr, "  category %s, message %s\n", gcf_error_category(err), gcf_error_message(err));
  CHECK(gcf_error_message(err) != NULL && strlen(gcf_error_message(err)) > 0);
  gcf_error_free(err);
}

static const char PAYLOAD[] =
    "{\"tool\":\"ctx\",\"symbols\":["
    "{\"qualifiedName\":\"pkg.Auth\",\"kind\":\"function\",\"score\":0.78,\"provenance\":\"lsp_resolved\",\"distance\":0},"
    "{\"qualifiedName\":\"pkg.Server\",\"kind\":\"function\",\"score\":0.54,\"provenance\":\"lsp_resolved\",\"distance\":1}],"
    "\"edges\":[{\"source\":\"pkg.Server\",\"target\":\"pkg.Auth\",\"edgeType\":\"calls\"}]}";

static const char TEXT[] =
    "GCF profile=graph tool=ctx symbols=2 edges=1\n## targets\n@0 fn pkg.Auth 0.78 lsp_resolved\n"
    "## related\n@1 fn pkg.Server 0.54 lsp_resolved\n## edges [1]\n@0<@1 calls\n";

static void test_version(void) {
  const char *v = gcf_version();
  CHECK(v != NULL && strstr(v, "(spec 3.6.0)") != NULL);
}

static void test_graph_encode_decode(void) {
  gcf_buf out = {NULL, 0};
  gcf_error *err = NULL;
  CHECK(gcf_graph_encode(S(PAYLOAD), &out, &err) == GCF_STATUS_OK);
  CHECK(err == NULL);
  CHECK(buf_eq(&out, TEXT));
  gcf_buf json = {NULL, 0};
  CHECK(gcf_graph_decode(out.ptr, out.len, &json, &err) == GCF_STATUS_OK);
  CHECK(json.ptr != NULL && strstr((const char *)json.ptr, "\"qualifiedName\":\"pkg.Server\"") != NULL);
  gcf_buf_free(&out);
  CHECK(out.ptr == NULL && out.len == 0);
  gcf_buf_free(&out); /* freeing an empty buffer twice is harmless */
  gcf_buf_free(&json);
  gcf_buf_free(NULL);
}

/* Word i of a gcf_graph_decode_packed result (little-endian, any alignment). */
static uint64_t packed_word(const gcf_buf *b, size_t i) {
  uint64_t w = 0;
  for (int k = 7; k >= 0; k--) w = (w << 8) | b->ptr[i * 8 + (size_t)k];
  return w;
}

/* Whether span (off, len) of result b over input names text. */
static int packed_span_is(const gcf_buf *b, const char *input, uint64_t off, uint64_t len, const char *text) {
  const uint8_t *src = (const uint8_t *)input;
  if (off & GCF_PACKED_ARENA) {
    src = b->ptr + packed_word(b, 11);
    off &= ~GCF_PACKED_ARENA;
  }
  return len == strlen(text) && memcmp(src + off, text, (size_t)len) == 0;
}

static void test_graph_decode_packed(void) {
  gcf_buf out = {NULL, 0};
  gcf_error *err = NULL;
  CHECK(gcf_graph_decode_packed(S(TEXT), &out, &err) == GCF_STATUS_OK);
  CHECK(err == NULL);
  CHECK(packed_word(&out, 0) == GCF_PACKED_VERSION);
  CHECK(packed_word(&out, 8) == 2 && packed_word(&out, 9) == 1 && packed_word(&out, 10) == 0);
  CHECK(packed_span_is(&out, TEXT, packed_word(&out, 4), packed_word(&out, 5), "ctx"));
  /* Symbol 1: pkg.Server, kind expanded into the arena, distance 1. */
  CHECK(packed_span_is(&out, TEXT, packed_word(&out, 21), packed_word(&out, 22), "pkg.Server"));
  CHECK(packed_span_is(&out, TEXT, packed_word(&out, 23), packed_word(&out, 24), "function"));
  CHECK((packed_word(&out, 23) & GCF_PACKED_ARENA) != 0);
  CHECK(packed_word(&out, 28) == 1);
  /* The edge: pkg.Server -> pkg.Auth, calls. */
  CHECK(packed_span_is(&out, TEXT, packed_word(&out, 29), packed_word(&out, 30), "pkg.Server"));
  CHECK(packed_span_is(&out, TEXT, packed_word(&out, 31), packed_word(&out, 32), "pkg.Auth"));
  CHECK(packed_span_is(&out, TEXT, packed_word(&out, 33), packed_word(&out, 34), "calls"));
  CHECK(packed_word(&out, 11) + packed_word(&out, 12) == out.len);
  gcf_buf_free(&out);
  /* The decoder's errors, as gcf_graph_decode gives them. */
  gcf_status st = gcf_graph_decode_packed(S("GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n"), &out, &err);
  CHECK(out.ptr == NULL);
  CHECK(err != NULL && gcf_error_line(err) == 3);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_utf8");
  err = NULL;
  st = gcf_graph_decode_packed(NULL, 5, &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");

  /* Generic: {"a": 1} as version, object tag, 1 member, key "a", int 1. */
  err = NULL;
  CHECK(gcf_generic_decode_packed(S("GCF profile=generic\na=1\n"), &out, &err) == GCF_STATUS_OK);
  static const uint8_t want[] = {GCF_GENERIC_PACKED_VERSION, 7, 1, 1, 'a', 3, 1, 0, 0, 0, 0, 0, 0, 0};
  CHECK(out.len == sizeof want && memcmp(out.ptr, want, sizeof want) == 0);
  gcf_buf_free(&out);
  st = gcf_generic_decode_packed(S("GCF profile=generic\n## [2]{a}\n1\n"), &out, &err);
  CHECK(out.ptr == NULL);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "count_mismatch");

  /* The packed form as input: {"a": 1} encodes as the JSON form does. */
  static const uint8_t value[] = {7, 1, 1, 'a', 3, 1, 0, 0, 0, 0, 0, 0, 0};
  err = NULL;
  CHECK(gcf_generic_encode_packed(value, sizeof value, 0, &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=generic\na=1\n"));
  gcf_buf_free(&out);
  st = gcf_generic_encode_packed(value, sizeof value - 1, 0, &out, &err);
  CHECK(out.ptr == NULL);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
}

/* A payload as C structs, every string a part of one text. */
static void test_graph_encode_payload(void) {
  static const char text[] = "ctxpkg.Authpkg.Serverfunctionlsp_resolvedcalls";
  const gcf_str tool = {text, 3}, auth = {text + 3, 8}, server = {text + 11, 10}, kind = {text + 21, 8},
                prov = {text + 29, 12}, calls = {text + 41, 5}, none = {NULL, 0};
  gcf_symbol symbols[2] = {{auth, kind, 0.78, prov, 0}, {server, kind, 0.54, prov, 1}};
  gcf_edge edges[1] = {{server, auth, calls, none}};
  gcf_graph_payload p = {tool, 0, 0, none, symbols, 2, edges, 1, NULL, 0};
  gcf_buf out = {NULL, 0};
  gcf_error *err = NULL;
  CHECK(gcf_graph_encode_payload(&p, &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, TEXT));
  gcf_buf_free(&out);
  CHECK(gcf_graph_encode_payload_in(&p, (const uint8_t *)text, sizeof text - 1, &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, TEXT));
  gcf_buf_free(&out);
  /* The text must hold every string. */
  gcf_status st = gcf_graph_encode_payload_in(&p, (const uint8_t *)text, 20, &out, &err);
  CHECK(out.ptr == NULL);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
}

static void test_graph_errors(void) {
  gcf_buf out = {NULL, 0};
  gcf_error *err = NULL;
  gcf_status st;

  /* Bad GCF: category, line and column. */
  st = gcf_graph_decode(S("GCF profile=graph\n## targets\n@x fn a.B 0.50 lsp\n"), &out, &err);
  CHECK(out.ptr == NULL && out.len == 0);
  CHECK(gcf_error_line(err) == 3);
  CHECK(gcf_error_column(err) >= 1);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_symbol_id");

  st = gcf_graph_decode(S("GCF profile=graph symbols=2\n## targets\n@0 fn a.B 0.50 lsp\n"), &out, &err);
  CHECK(gcf_error_line(err) >= 1);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "count_mismatch");

  st = gcf_graph_decode(S("hello\n"), &out, &err);
  CHECK(gcf_error_line(err) == 1);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "missing_header");

  /* Bytes that are not UTF-8 in GCF input: a data error with a position. */
  st = gcf_graph_decode(S("GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n"), &out, &err);
  CHECK(gcf_error_line(err) == 3);
  CHECK(gcf_error_column(err) == 8);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_utf8");

  /* Bad JSON: its own status, with serde_json's position. */
  st = gcf_graph_encode(S("{\"symbols\": [}"), &out, &err);
  CHECK(gcf_error_line(err) == 1 && gcf_error_column(err) == 14);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "json");
  st = gcf_graph_encode(S("{\"symbols\": [{\"score\": \"high\"}]}"), &out, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "invalid_input");

  /* Invalid UTF-8 in a JSON argument: an invalid argument. */
  st = gcf_graph_encode(S("{\"tool\":\"\xc3\x28\"}"), &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_utf8");

  /* A value the encoder cannot represent. */
  st = gcf_graph_encode(
      S("{\"symbols\":[{\"qualifiedName\":\"a b\",\"kind\":\"function\",\"score\":0.5,\"provenance\":\"x\",\"distance\":0}]}"),
      &out, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");

  /* NULL arguments. */
  st = gcf_graph_encode(NULL, 10, &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_graph_encode(S(PAYLOAD), NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_graph_decode(NULL, 0, &out, &err); /* empty input */
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "missing_header");
  /* err may be NULL: only the status is reported. */
  CHECK(gcf_graph_decode(S("nope"), &out, NULL) == GCF_STATUS_DATA_ERROR);
  /* Accessors tolerate NULL. */
  CHECK(gcf_error_line(NULL) == 0 && gcf_error_column(NULL) == 0);
  CHECK(str_eq(gcf_error_category(NULL), "") && str_eq(gcf_error_message(NULL), ""));
  CHECK(gcf_error_status(NULL) == GCF_STATUS_INVALID_ARGUMENT);
  gcf_error_free(NULL);
}

static const char HELD_HEAD[] = "{\"symbols\":[";
static const char SYMBOL_FMT[] =
    "{\"qualifiedName\":\"pkg.F%d\",\"kind\":\"function\",\"score\":0.5,\"provenance\":\"lsp\",\"distance\":0}";

/* A snapshot JSON with symbols pkg.F0..pkg.F(n-1), plus pkg.Gone when gone. */
static char *snapshot_json(int n, int gone) {
  size_t cap = 128 + (size_t)n * 128;
  char *s = malloc(cap);
  size_t len = (size_t)snprintf(s, cap, "%s", HELD_HEAD);
  for (int i = 0; i < n; i++) {
    len += (size_t)snprintf(s + len, cap - len, i ? "," : "");
    len += (size_t)snprintf(s + len, cap - len, SYMBOL_FMT, i);
  }
  if (gone)
    len += (size_t)snprintf(s + len, cap - len,
                            ",{\"qualifiedName\":\"pkg.Gone\",\"kind\":\"function\",\"score\":0.5,\"provenance\":\"lsp\",\"distance\":0}");
  snprintf(s + len, cap - len, "]}");
  return s;
}

static void test_graph_delta_pack_root(void) {
  gcf_buf root = {NULL, 0}, out = {NULL, 0};
  gcf_error *err = NULL;
  gcf_outcome outcome = GCF_OUTCOME_NONE;

  CHECK(gcf_graph_pack_root(S(PAYLOAD), &root, &err) == GCF_STATUS_OK);
  CHECK(root.len == 71 && memcmp(root.ptr, "sha256:", 7) == 0);

  /* First request: full payload with pack_root. */
  CHECK(gcf_graph_delta(NULL, 0, S(PAYLOAD), NULL, 0, &outcome, &out, &err) == GCF_STATUS_OK);
  CHECK(outcome == GCF_OUTCOME_FULL);
  CHECK(out.ptr && strstr((const char *)out.ptr, (const char *)root.ptr) != NULL);
  gcf_buf_free(&out);

  /* Echoed current root: unchanged. */
  CHECK(gcf_graph_delta(NULL, 0, S(PAYLOAD), root.ptr, root.len, &outcome, &out, &err) == GCF_STATUS_OK);
  CHECK(outcome == GCF_OUTCOME_UNCHANGED);
  CHECK(out.ptr && strstr((const char *)out.ptr, "unchanged=true") != NULL);
  gcf_buf_free(&out);

  /* Held snapshot with one symbol more: a delta, which applies back. */
  char *held = snapshot_json(40, 1), *current = snapshot_json(40, 0);
  gcf_buf held_root = {NULL, 0}, applied = {NULL, 0}, r1 = {NULL, 0}, r2 = {NULL, 0};
  CHECK(gcf_graph_pack_root((const uint8_t *)held, strlen(held), &held_root, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_delta((const uint8_t *)held, strlen(held), (const uint8_t *)current, strlen(current),
                        held_root.ptr, held_root.len, &outcome, &out, &err) == GCF_STATUS_OK);
  CHECK(outcome == GCF_OUTCOME_DELTA);
  CHECK(out.ptr && strstr((const char *)out.ptr, "## removed\nfn pkg.Gone\n") != NULL);
  CHECK(gcf_graph_apply_delta((const uint8_t *)held, strlen(held), out.ptr, out.len, &applied, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_pack_root(applied.ptr, applied.len, &r1, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_pack_root((const uint8_t *)current, strlen(current), &r2, &err) == GCF_STATUS_OK);
  CHECK(r1.len == r2.len && memcmp(r1.ptr, r2.ptr, r1.len) == 0);
  /* Applying to the wrong base: base_mismatch, and nothing is output. */
  gcf_buf none = {NULL, 0};
  gcf_status st = gcf_graph_apply_delta((const uint8_t *)current, strlen(current), out.ptr, out.len, &none, &err);
  CHECK(none.ptr == NULL);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "base_mismatch");
  st = gcf_graph_apply_delta((const uint8_t *)held, strlen(held), S("GCF profile=graph delta=true\n## bogus\n"), &none, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "malformed_delta");
  /* Under limits: the one removed line passes a container limit of 1, not an input limit below its size. */
  gcf_limits limits = {0};
  limits.max_container_len = 1;
  CHECK(gcf_graph_apply_delta_with_limits((const uint8_t *)held, strlen(held), out.ptr, out.len, &limits, &none, &err) ==
        GCF_STATUS_OK);
  CHECK(none.len == applied.len && memcmp(none.ptr, applied.ptr, applied.len) == 0);
  gcf_buf_free(&none);
  limits.max_input_len = out.len - 1;
  st = gcf_graph_apply_delta_with_limits((const uint8_t *)held, strlen(held), out.ptr, out.len, &limits, &none, &err);
  CHECK(none.ptr == NULL);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "limit_exceeded");
  st = gcf_graph_decode_delta_with_limits(out.ptr, out.len, &limits, &none, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "limit_exceeded");
  /* NULL outcome. */
  st = gcf_graph_delta(NULL, 0, S(PAYLOAD), NULL, 0, NULL, &none, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_graph_delta(S("[1"), S(PAYLOAD), NULL, 0, &outcome, &none, &err);
  CHECK(outcome == GCF_OUTCOME_NONE);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "invalid_input");

  gcf_buf_free(&out);
  gcf_buf_free(&held_root);
  gcf_buf_free(&applied);
  gcf_buf_free(&r1);
  gcf_buf_free(&r2);
  gcf_buf_free(&root);
  free(held);
  free(current);

  /* Encoding a delta described as JSON. */
  CHECK(gcf_graph_encode_delta(
            S("{\"tool\":\"ctx\",\"baseRoot\":\"aaa111\",\"newRoot\":\"bbb222\",\"removed\":[{\"kind\":\"function\",\"qualifiedName\":\"pkg.Old\"}]}"),
            &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=graph tool=ctx delta=true base_root=aaa111 new_root=bbb222 tokens=0 savings=0%\n## removed\nfn pkg.Old\n"));
  gcf_buf_free(&out);
  st = gcf_graph_encode_delta(S("{\"tool\":\"ctx\"}"), &out, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
}

static void test_graph_session(void) {
  gcf_graph_session *s = NULL;
  gcf_error *err = NULL;
  gcf_buf a = {NULL, 0}, b = {NULL, 0};
  CHECK(gcf_graph_session_new(&s, &err) == GCF_STATUS_OK && s != NULL);
  CHECK(gcf_graph_session_encode(s, S(PAYLOAD), &a, &err) == GCF_STATUS_OK);
  CHECK(a.ptr && strstr((const char *)a.ptr, "session=true") != NULL);
  CHECK(gcf_graph_session_encode(s, S(PAYLOAD), &b, &err) == GCF_STATUS_OK);
  CHECK(b.ptr && strstr((const char *)b.ptr, "previously transmitted") != NULL);
  gcf_buf_free(&a); /* outputs are reset on entry: free a buffer before reusing it */
  gcf_status st = gcf_graph_session_encode(NULL, S(PAYLOAD), &a, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_graph_session_new(NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  gcf_buf_free(&a);
  gcf_buf_free(&b);
  gcf_graph_session_free(s);
  gcf_graph_session_free(NULL);
}

/* The consumer side: a session's second payload (all bare references) decodes
 * through the decoder that saw the first, and is refused without it. */
static void test_graph_session_decoder(void) {
  gcf_graph_session *s = NULL;
  gcf_graph_session_decoder *d = NULL, *fresh = NULL;
  gcf_error *err = NULL;
  gcf_buf a = {NULL, 0}, b = {NULL, 0}, json = {NULL, 0};
  CHECK(gcf_graph_session_new(&s, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_session_encode(s, S(PAYLOAD), &a, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_session_encode(s, S(PAYLOAD), &b, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_session_decoder_new(NULL, 0, &d, &err) == GCF_STATUS_OK && d != NULL);
  CHECK(gcf_graph_session_decoder_decode(d, a.ptr, a.len, &json, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_session_decoder_len(d) == 2);
  gcf_buf_free(&json);
  CHECK(gcf_graph_session_decoder_decode(d, b.ptr, b.len, &json, &err) == GCF_STATUS_OK);
  CHECK(json.ptr && strstr((const char *)json.ptr, "\"qualifiedName\":\"pkg.Server\"") != NULL);
  CHECK(json.ptr && strstr((const char *)json.ptr, "\"source\":\"pkg.Server\"") != NULL);
  gcf_buf_free(&json);
  /* A decoder that never saw the first payload refuses the second. */
  CHECK(gcf_graph_session_decoder_new(NULL, 0, &fresh, &err) == GCF_STATUS_OK);
  gcf_status st = gcf_graph_session_decoder_decode(fresh, b.ptr, b.len, &json, &err);
  CHECK(json.ptr == NULL);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "unknown_edge_reference");
  err = NULL;
  CHECK(gcf_graph_session_decoder_len(fresh) == 0);
  /* Limits, the retention bound, reset, NULLs. */
  gcf_graph_session_decoder_free(fresh);
  fresh = NULL;
  gcf_limits limits = {0};
  limits.max_line_len = 8;
  CHECK(gcf_graph_session_decoder_new(&limits, 0, &fresh, &err) == GCF_STATUS_OK);
  st = gcf_graph_session_decoder_decode(fresh, a.ptr, a.len, &json, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "limit_exceeded");
  err = NULL;
  gcf_graph_session_decoder_free(fresh);
  CHECK(gcf_graph_session_decoder_new(NULL, 1, &fresh, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_session_decoder_decode(fresh, a.ptr, a.len, &json, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_session_decoder_len(fresh) == 0);
  gcf_buf_free(&json);
  gcf_graph_session_decoder_reset(d);
  CHECK(gcf_graph_session_decoder_len(d) == 0);
  st = gcf_graph_session_decoder_decode(NULL, a.ptr, a.len, &json, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  err = NULL;
  st = gcf_graph_session_decoder_new(NULL, 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  CHECK(gcf_graph_session_decoder_len(NULL) == 0);
  gcf_graph_session_decoder_reset(NULL);
  gcf_graph_session_decoder_free(NULL);
  gcf_graph_session_decoder_free(fresh);
  gcf_graph_session_decoder_free(d);
  gcf_graph_session_free(s);
  gcf_buf_free(&a);
  gcf_buf_free(&b);
}

/* A callback sink that collects bytes (up to a cap), counts them, and can refuse. */
typedef struct {
  char *data;
  size_t len, cap;
  unsigned long long total;
  long calls, fail_after;
} sink_t;

static int sink_write(void *user_data, const uint8_t *bytes, size_t len) {
  sink_t *s = user_data;
  s->calls++;
  if (s->fail_after >= 0 && s->calls > s->fail_after) return 42;
  s->total += len;
  if (s->data && s->len + len < s->cap) {
    memcpy(s->data + s->len, bytes, len);
    s->len += len;
    s->data[s->len] = 0;
  }
  return 0;
}

static void test_graph_stream(void) {
  char text[4096];
  sink_t sink = {text, 0, sizeof text, 0, 0, -1};
  gcf_graph_stream *w = NULL;
  gcf_error *err = NULL;
  gcf_graph_stream_options opts;
  memset(&opts, 0, sizeof opts);
  opts.tool = (const uint8_t *)"ctx";
  opts.tool_len = 3;
  opts.trailer = GCF_TRAILER_LABELED;
  opts.index_names = true;
  CHECK(gcf_graph_stream_new(sink_write, &sink, &opts, &w, &err) == GCF_STATUS_OK && w != NULL);
  uint64_t a = 99, b = 99;
  CHECK(gcf_graph_stream_write_symbol(w, S("pkg.Auth"), S("function"), 0.95, S("lsp"), 0, &a, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_stream_write_symbol(w, S("pkg.Server"), S("function"), 0.6, S("lsp"), 1, &b, &err) == GCF_STATUS_OK);
  CHECK(a == 0 && b == 1);
  gcf_status st = gcf_graph_stream_write_edge(w, 1, 7, S("calls"), NULL, 0, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "unknown_edge_reference");
  CHECK(gcf_graph_stream_write_edge(w, b, a, S("calls"), NULL, 0, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_stream_write_edge_by_name(w, S("pkg.Auth"), S("pkg.Server"), S("imports"), S("added"), &err) == GCF_STATUS_OK);
  st = gcf_graph_stream_write_edge_by_name(w, S("pkg.Auth"), S("pkg.Nope"), S("calls"), NULL, 0, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "unknown_edge_reference");
  st = gcf_graph_stream_write_symbol(w, S("late"), S("function"), 0.5, S("lsp"), 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  st = gcf_graph_stream_write_symbol(w, S("bad\xff"), S("function"), 0.5, S("lsp"), 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_utf8");
  st = gcf_graph_stream_write_edge(w, 0, 1, NULL, 3, NULL, 0, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  CHECK(gcf_graph_stream_write_location(w, 1, S("src/server.go"), 12, 1, 0, 0, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_stream_flush(w, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_stream_finish(w, &err) == GCF_STATUS_OK);
  st = gcf_graph_stream_finish(w, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  st = gcf_graph_stream_write_edge(w, 0, 1, S("calls"), NULL, 0, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  gcf_graph_stream_free(w);
  CHECK(str_eq(text,
               "GCF profile=graph tool=ctx\n## targets\n@0 fn pkg.Auth 0.95 lsp\n## related\n@1 fn pkg.Server 0.60 lsp\n"
               "## edges [?]\n@0<@1 calls\n@1<@0 imports added\n## loc [?]\n@1 src/server.go 12 1\n"
               "##! summary symbols=2 edges=2 counts=targets:1,related:1,edges:2 loc=1\n"));
  if (!str_eq(text, "")) { /* decode what was streamed */
    gcf_buf json = {NULL, 0};
    CHECK(gcf_graph_decode((const uint8_t *)text, strlen(text), &json, &err) == GCF_STATUS_OK);
    gcf_buf_free(&json);
  }

  /* Argument errors at creation. */
  st = gcf_graph_stream_new(NULL, NULL, NULL, &w, &err);
  CHECK(w == NULL);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  opts.trailer = 9;
  st = gcf_graph_stream_new(sink_write, &sink, &opts, &w, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  opts.trailer = GCF_TRAILER_POSITIONAL;
  opts.tool = (const uint8_t *)"has space";
  opts.tool_len = 9;
  st = gcf_graph_stream_new(sink_write, &sink, &opts, &w, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
  opts.tool = NULL;
  opts.tool_len = 0;
  opts.pack_root = (const uint8_t *)"sha256:a b";
  opts.pack_root_len = 10;
  st = gcf_graph_stream_new(sink_write, &sink, &opts, &w, &err);
  CHECK(w == NULL);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
  opts.pack_root = NULL;
  st = gcf_graph_stream_new(sink_write, &sink, NULL, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_graph_stream_write_symbol(NULL, S("a"), S("function"), 0.5, S("x"), 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_graph_stream_finish(NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  gcf_graph_stream_free(NULL);
}

/* Bare session references (spec §9) in a stream: the next id, counted in
 * their group; edges name them by id or, with index_names, by name. The
 * header says session=true and the pack root the options give. */
static void test_graph_stream_bare_refs(void) {
  char text[1024];
  sink_t sink = {text, 0, sizeof text, 0, 0, -1};
  gcf_graph_stream *w = NULL;
  gcf_error *err = NULL;
  gcf_graph_stream_options opts;
  memset(&opts, 0, sizeof opts);
  opts.index_names = true;
  opts.session = true;
  opts.pack_root = (const uint8_t *)"sha256:0f";
  opts.pack_root_len = 9;
  CHECK(gcf_graph_stream_new(sink_write, &sink, &opts, &w, &err) == GCF_STATUS_OK);
  uint64_t a = 99, b = 99, c = 99;
  CHECK(gcf_graph_stream_write_bare_ref(w, S("pkg.Auth"), 0, &a, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_stream_write_symbol(w, S("pkg.Server"), S("function"), 0.6, S("lsp"), 1, &b, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_stream_write_bare_ref(w, NULL, 0, 1, &c, &err) == GCF_STATUS_OK);
  CHECK(a == 0 && b == 1 && c == 2);
  CHECK(gcf_graph_stream_write_edge_by_name(w, S("pkg.Server"), S("pkg.Auth"), S("calls"), NULL, 0, &err) == GCF_STATUS_OK);
  gcf_status st = gcf_graph_stream_write_bare_ref(w, S("late"), 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  st = gcf_graph_stream_write_bare_ref(NULL, S("a"), 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  CHECK(gcf_graph_stream_finish(w, &err) == GCF_STATUS_OK);
  gcf_graph_stream_free(w);
  CHECK(str_eq(text,
               "GCF profile=graph tool= pack_root=sha256:0f session=true\n## targets\n@0  # previously transmitted\n"
               "## related\n@1 fn pkg.Server 0.60 lsp\n"
               "@2  # previously transmitted\n## edges [?]\n@0<@1 calls\n##! summary symbols=3 edges=1 counts=1,2,1\n"));
}

static void test_failing_callback(void) {
  sink_t sink = {NULL, 0, 0, 0, 0, 0}; /* refuses the first write */
  gcf_graph_stream *w = NULL;
  gcf_error *err = NULL;
  CHECK(gcf_graph_stream_new(sink_write, &sink, NULL, &w, &err) == GCF_STATUS_OK);
  gcf_status st = GCF_STATUS_OK;
  int i;
  for (i = 0; i < 100000 && st == GCF_STATUS_OK; i++)
    st = gcf_graph_stream_write_symbol(w, S("pkg.Name"), S("function"), 0.5, S("lsp"), (uint32_t)(i / 100), NULL, &err);
  CHECK(st == GCF_STATUS_SINK_ERROR);
  CHECK(err && strstr(gcf_error_message(err), "42") != NULL);
  expect_error(st, err, GCF_STATUS_SINK_ERROR, "sink");
  /* The stream is failed now. */
  st = gcf_graph_stream_write_symbol(w, S("pkg.More"), S("function"), 0.5, S("lsp"), 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  st = gcf_graph_stream_finish(w, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  gcf_graph_stream_free(w);

  /* A refusal of the trailer surfaces from finish. */
  sink_t late = {NULL, 0, 0, 0, 0, 0};
  CHECK(gcf_graph_stream_new(sink_write, &late, NULL, &w, &err) == GCF_STATUS_OK);
  CHECK(gcf_graph_stream_write_symbol(w, S("a"), S("function"), 0.5, S("x"), 0, NULL, &err) == GCF_STATUS_OK);
  st = gcf_graph_stream_finish(w, &err);
  expect_error(st, err, GCF_STATUS_SINK_ERROR, "sink");
  gcf_graph_stream_free(w);
}

/* 10^6 symbols and 10^6 edges by id into a callback that counts bytes. */
static void test_million_row_stream(void) {
  sink_t sink = {NULL, 0, 0, 0, 0, -1};
  gcf_graph_stream *w = NULL;
  gcf_error *err = NULL;
  const uint32_t n = 1000000;
  char name[32];
  int ok = gcf_graph_stream_new(sink_write, &sink, NULL, &w, &err) == GCF_STATUS_OK;
  unsigned long long expected = strlen("GCF profile=graph tool=\n");
  for (uint32_t i = 0; ok && i < n; i++) {
    uint32_t distance = i < n / 2 ? 0 : 1;
    if (i == 0 || i == n / 2) expected += strlen(distance ? "## related\n" : "## targets\n");
    int len = snprintf(name, sizeof name, "pkg.Sym%u", i);
    uint64_t id = 0;
    ok = gcf_graph_stream_write_symbol(w, (const uint8_t *)name, (size_t)len, S("function"), 0.5, S("lsp"), distance,
                                       &id, &err) == GCF_STATUS_OK &&
         id == i;
    /* "@<i> fn pkg.Sym<i> 0.50 lsp\n" */
    int digits = snprintf(NULL, 0, "%u", i);
    expected += (unsigned long long)(1 + digits + 4 + len + 1 + 4 + 1 + 3 + 1);
  }
  CHECK(ok);
  expected += strlen("## edges [?]\n");
  for (uint32_t i = 1; ok && i <= n; i++) {
    uint32_t src = i % n, tgt = i - 1;
    ok = gcf_graph_stream_write_edge(w, src, tgt, S("calls"), NULL, 0, &err) == GCF_STATUS_OK;
    expected += (unsigned long long)(1 + snprintf(NULL, 0, "%u", tgt) + 2 + snprintf(NULL, 0, "%u", src) + 1 + 5 + 1);
  }
  CHECK(ok);
  CHECK(gcf_graph_stream_finish(w, &err) == GCF_STATUS_OK);
  expected += strlen("##! summary symbols=1000000 edges=1000000 counts=500000,500000,1000000\n");
  CHECK(sink.total == expected);
  if (sink.total != expected) fprintf(stderr, "  streamed %llu bytes, expected %llu\n", sink.total, expected);
  CHECK(sink.calls > 1000); /* bytes arrive as they are produced, not at the end */
  if (err) gcf_error_free(err);
  gcf_graph_stream_free(w);
}

static void test_generic(void) {
  gcf_buf out = {NULL, 0}, json = {NULL, 0};
  gcf_error *err = NULL;
  static const char value[] = "{\"name\":\"Alice\",\"tags\":[\"a\",\"b\"],\"id\":9223372036854775807}";
  CHECK(gcf_generic_encode(S(value), &out, &err) == GCF_STATUS_OK);
  CHECK(out.ptr && strncmp((const char *)out.ptr, "GCF profile=generic\n", 20) == 0);
  CHECK(gcf_generic_decode(out.ptr, out.len, &json, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&json, value));
  gcf_buf_free(&out);
  gcf_buf_free(&json);

  gcf_status st = gcf_generic_encode(S("18446744073709551615"), &out, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "out_of_range");
  st = gcf_generic_encode(S("{\"a\":"), &out, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "json");
  st = gcf_generic_decode(S("GCF profile=generic\nname=Alice\nname=Bob\n"), &json, &err);
  CHECK(gcf_error_line(err) == 3);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "duplicate_key");
  st = gcf_generic_decode(S("GCF profile=generic\nvalue=\"hello\n"), &json, &err);
  CHECK(gcf_error_line(err) == 2 && gcf_error_column(err) >= 1);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "unterminated_quote");
  st = gcf_generic_decode(S("GCF profile=generic\nvalue=\xff\n"), &json, &err);
  CHECK(gcf_error_line(err) == 2);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_utf8");
  st = gcf_generic_decode(NULL, 1, &json, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");

  /* Decode limits: zero-initialised is the defaults, a field set is that limit. */
  static const char rows[] = "GCF profile=generic\n## rows [3]{id}\n1\n2\n3\n";
  gcf_limits limits = {0};
  CHECK(gcf_generic_decode_with_limits(S(rows), &limits, &json, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&json, "{\"rows\":[{\"id\":1},{\"id\":2},{\"id\":3}]}"));
  gcf_buf_free(&json);
  limits.max_container_len = 2;
  st = gcf_generic_decode_with_limits(S(rows), &limits, &json, &err);
  CHECK(gcf_error_line(err) >= 2);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "limit_exceeded");
  limits.max_container_len = 0;
  limits.max_depth = 500;
  st = gcf_generic_decode_with_limits(S(rows), &limits, &json, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "usage");

  gcf_buf r1 = {NULL, 0}, r2 = {NULL, 0};
  CHECK(gcf_generic_pack_root(S("{\"key\":\"id\",\"fields\":[\"id\",\"t\"],\"rows\":[{\"id\":1,\"t\":2.5},{\"id\":2,\"t\":3}]}"),
                              &r1, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_pack_root(S("{\"key\":\"id\",\"fields\":[\"id\",\"t\"],\"rows\":[{\"id\":2,\"t\":3},{\"id\":1,\"t\":2.5}]}"),
                              &r2, &err) == GCF_STATUS_OK);
  CHECK(r1.len == 71 && r1.len == r2.len && memcmp(r1.ptr, r2.ptr, r1.len) == 0);
  gcf_buf_free(&r1);
  gcf_buf_free(&r2);
  st = gcf_generic_pack_root(S("{\"key\":\"id\"}"), &r1, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "invalid_input");
}

static void test_generic_constant_columns_and_groups(void) {
  gcf_buf out = {NULL, 0};
  gcf_error *err = NULL;
  static const char rows[] = "[{\"id\":1,\"t\":\"f\",\"s\":\"a\"},{\"id\":2,\"t\":\"f\",\"s\":\"b\"}]";
  CHECK(gcf_generic_encode(S(rows), &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=generic\n## [2]{id,t=f,s}\n1|a\n2|b\n"));
  gcf_buf_free(&out);
  CHECK(gcf_generic_encode_flags(S(rows), GCF_GENERIC_NO_CONSTANT_COLUMNS, &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=generic\n## [2]{id,t,s}\n1|f|a\n2|f|b\n"));
  gcf_buf_free(&out);
  CHECK(gcf_generic_encode_flags(S(rows), 0, &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=generic\n## [2]{id,t=f,s}\n1|a\n2|b\n"));
  gcf_buf_free(&out);
  gcf_status st = gcf_generic_encode_flags(S(rows), 0x80, &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  /* GCF_GENERIC_NO_FLATTEN: the object field as attachments, not path columns. */
  static const char nested[] = "[{\"id\":1,\"o\":{\"n\":\"x\"}},{\"id\":2,\"o\":{\"n\":\"y\"}}]";
  CHECK(gcf_generic_encode_flags(S(nested), 0, &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=generic\n## [2]{id,\"o>n\"}\n1|x\n2|y\n"));
  gcf_buf_free(&out);
  CHECK(gcf_generic_encode_flags(S(nested), GCF_GENERIC_NO_FLATTEN, &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=generic\n## [2]{id,o}\n@0 1|^\n.o {}\n    n=x\n@1 2|^\n.o {}\n    n=y\n"));
  gcf_buf_free(&out);

  CHECK(gcf_generic_encode_grouped(S(rows), S("id"), S("s"), &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, "GCF profile=generic\n## [2]{@id,t=f,s} group=s\ns=a [1]\n1\ns=b [1]\n2\n"));
  gcf_buf_free(&out);
  st = gcf_generic_encode_grouped(S(rows), S("t"), S("s"), &out, &err);
  CHECK(out.ptr == NULL && out.len == 0);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
  st = gcf_generic_encode_grouped(S(rows), S("id"), S("id"), &out, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
  st = gcf_generic_encode_grouped(S(rows), NULL, 2, S("s"), &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
}

static gcf_cell cell_int(int64_t v) { gcf_cell c = {GCF_CELL_INT, v, 0.0, NULL, 0}; return c; }
static gcf_cell cell_str(const char *s) { gcf_cell c = {GCF_CELL_STR, 0, 0.0, s, strlen(s)}; return c; }
static gcf_cell cell_of(uint32_t kind) { gcf_cell c = {kind, 0, 0.0, NULL, 0}; return c; }

static void test_generic_stream(void) {
  char text[4096];
  sink_t sink = {text, 0, sizeof text, 0, 0, -1};
  gcf_generic_stream *w = NULL;
  gcf_error *err = NULL;
  gcf_generic_stream_options opts = {(const uint8_t *)"export", 6};
  CHECK(gcf_generic_stream_new(sink_write, &sink, &opts, &w, &err) == GCF_STATUS_OK);
  gcf_cell total = cell_int(2);
  CHECK(gcf_generic_stream_field(w, S("count"), &total, &err) == GCF_STATUS_OK);
  gcf_str fields[] = {{"id", 2}, {"name", 4}, {"ok", 2}, {"score", 5}, {"note", 4}};
  CHECK(gcf_generic_stream_begin_table(w, S("rows"), fields, 5, &err) == GCF_STATUS_OK);
  gcf_cell row1[5] = {cell_int(1), cell_str("Alice Smith"), cell_of(GCF_CELL_BOOL), cell_of(GCF_CELL_FLOAT),
                      cell_of(GCF_CELL_MISSING)};
  row1[2].int_value = 1;
  row1[3].float_value = 2.5;
  gcf_cell row2[5] = {cell_int(2), cell_str("a|b"), cell_of(GCF_CELL_BOOL), cell_of(GCF_CELL_NULL), cell_str("")};
  CHECK(gcf_generic_stream_row(w, row1, 5, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_row(w, row2, 5, &err) == GCF_STATUS_OK);
  gcf_status st = gcf_generic_stream_row(w, row1, 2, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "row_width_mismatch");
  gcf_cell bogus[1] = {cell_of(77)};
  st = gcf_generic_stream_row(w, bogus, 1, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  gcf_cell bad_text[5] = {cell_int(3), cell_str("\xff"), cell_of(GCF_CELL_NULL), cell_of(GCF_CELL_NULL), cell_of(GCF_CELL_NULL)};
  st = gcf_generic_stream_row(w, bad_text, 5, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_utf8");
  gcf_cell nan = cell_of(GCF_CELL_FLOAT);
  nan.float_value = 0.0 / 0.0;
  gcf_cell nan_row[5] = {cell_int(4), nan, cell_of(GCF_CELL_NULL), cell_of(GCF_CELL_NULL), cell_of(GCF_CELL_NULL)};
  st = gcf_generic_stream_row(w, nan_row, 5, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "out_of_range");
  CHECK(gcf_generic_stream_end_table(w, &err) == GCF_STATUS_OK);
  /* A keyed map whose rows carry their key as a cell: a number bare. */
  gcf_str value_fields[] = {{"v", 1}};
  CHECK(gcf_generic_stream_begin_keyed_map(w, S("m"), S("id"), value_fields, 1, &err) == GCF_STATUS_OK);
  gcf_cell member1[2] = {cell_int(7), cell_str("x")};
  gcf_cell member2[2] = {cell_str("8"), cell_int(8)};
  CHECK(gcf_generic_stream_keyed_row_cells(w, member1, 2, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_keyed_row_cells(w, member2, 2, &err) == GCF_STATUS_OK);
  gcf_cell null_key[2] = {cell_of(GCF_CELL_NULL), cell_int(9)};
  st = gcf_generic_stream_keyed_row_cells(w, null_key, 2, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
  CHECK(gcf_generic_stream_end_table(w, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_begin_section(w, S("meta"), &err) == GCF_STATUS_OK);
  gcf_cell who = cell_str("me");
  CHECK(gcf_generic_stream_field(w, S("owner"), &who, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_end_section(w, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_flush(w, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_finish(w, &err) == GCF_STATUS_OK);
  st = gcf_generic_stream_row(w, row1, 5, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  gcf_generic_stream_free(w);
  gcf_buf json = {NULL, 0};
  CHECK(gcf_generic_decode((const uint8_t *)text, strlen(text), &json, &err) == GCF_STATUS_OK);
  CHECK(json.ptr && strstr((const char *)json.ptr, "\"name\":\"a|b\"") != NULL);
  CHECK(json.ptr && strstr((const char *)json.ptr, "\"owner\":\"me\"") != NULL);
  CHECK(strstr(text, "\n7|x\n\"8\"|8\n") != NULL);
  gcf_buf_free(&json);
  if (err) { fprintf(stderr, "  %s\n", gcf_error_message(err)); gcf_error_free(err); err = NULL; }

  st = gcf_generic_stream_new(NULL, NULL, NULL, &w, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_stream_begin_table(NULL, NULL, 0, NULL, 0, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");

  /* A refusing callback. */
  sink_t refuse = {NULL, 0, 0, 0, 0, 0};
  CHECK(gcf_generic_stream_new(sink_write, &refuse, NULL, &w, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_begin_table(w, NULL, 0, fields, 1, &err) == GCF_STATUS_OK);
  st = GCF_STATUS_OK;
  gcf_cell one[1] = {cell_int(1)};
  for (int i = 0; i < 100000 && st == GCF_STATUS_OK; i++) st = gcf_generic_stream_row(w, one, 1, &err);
  expect_error(st, err, GCF_STATUS_SINK_ERROR, "sink");
  st = gcf_generic_stream_row(w, one, 1, &err);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
  gcf_generic_stream_free(w);
  gcf_generic_stream_free(NULL);
}

static const char ORDERS[] =
    "{\"name\":\"orders\",\"key\":\"id\",\"fields\":[\"id\",\"total\",\"status\",\"customer\"],\"rows\":["
    "{\"id\":1001,\"total\":59.98,\"status\":\"shipped\",\"customer\":\"Alice\"},"
    "{\"id\":1002,\"total\":29.99,\"status\":\"pending\",\"customer\":\"Bob\"},"
    "{\"id\":1003,\"total\":129.5,\"status\":\"shipped\",\"customer\":\"Carol\"}]}";
static const char ORDERS_ROOT[] = "sha256:457e7c31e62e070a039b5cde9ea3edff6330e5913874e1165afddbcf6798eb7c";
static const char ORDERS_DELTA[] =
    "{\"tool\":\"orders_query\",\"key\":\"id\",\"fields\":[\"id\",\"total\",\"status\",\"customer\"],"
    "\"baseRoot\":\"sha256:457e7c31e62e070a039b5cde9ea3edff6330e5913874e1165afddbcf6798eb7c\","
    "\"newRoot\":\"sha256:ebe554601676e61cd522a5dc13d78499fd20e730353eb3e0b18c7fdc088f0f05\","
    "\"added\":[{\"id\":1004,\"total\":75.00,\"status\":\"pending\",\"customer\":\"Dave\"}],"
    "\"changed\":[{\"id\":1002,\"total\":29.99,\"status\":\"shipped\",\"customer\":\"Bob\"}],"
    "\"removed\":[1001],\"deltaTokens\":30,\"fullTokens\":160}";
static const char ORDERS_WIRE[] =
    "GCF profile=generic tool=orders_query delta=true "
    "base_root=sha256:457e7c31e62e070a039b5cde9ea3edff6330e5913874e1165afddbcf6798eb7c "
    "new_root=sha256:ebe554601676e61cd522a5dc13d78499fd20e730353eb3e0b18c7fdc088f0f05 key=id savings=81%\n"
    "## added [1]{@id,total,status,customer}\n1004|75|pending|Dave\n"
    "## changed [1]{@id,total,status,customer}\n1002|29.99|shipped|Bob\n"
    "## removed [1]{@id}\n1001\n";

/* A keyed set {id, status} of n rows, row 7's status given. */
static char *keyed_set_json(int n, const char *status_of_7) {
  size_t cap = 128 + (size_t)n * 64;
  char *s = malloc(cap);
  size_t len = (size_t)snprintf(s, cap, "{\"key\":\"id\",\"fields\":[\"id\",\"status\"],\"rows\":[");
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(s + len, cap - len, "%s{\"id\":%d,\"status\":\"%s\"}", i ? "," : "", i,
                            i == 7 ? status_of_7 : "open");
  snprintf(s + len, cap - len, "]}");
  return s;
}

static void test_generic_delta(void) {
  gcf_buf out = {NULL, 0}, applied = {NULL, 0}, root = {NULL, 0};
  gcf_error *err = NULL;
  gcf_status st;

  /* Full payload: pack_root and key in the header, identity marked @. */
  CHECK(gcf_generic_encode_full(S(ORDERS), S("orders_query"), &out, &err) == GCF_STATUS_OK);
  CHECK(out.ptr && strncmp((const char *)out.ptr, "GCF profile=generic tool=orders_query pack_root=", 48) == 0);
  CHECK(out.ptr && strstr((const char *)out.ptr, ORDERS_ROOT) != NULL);
  CHECK(out.ptr && strstr((const char *)out.ptr, " key=id\n## orders [3]{@id,total,status,customer}\n1001|59.98|shipped|Alice\n") != NULL);
  gcf_buf_free(&out);
  CHECK(gcf_generic_encode_full(S(ORDERS), NULL, 0, &out, &err) == GCF_STATUS_OK); /* no tool */
  CHECK(out.ptr && strncmp((const char *)out.ptr, "GCF profile=generic pack_root=", 30) == 0);
  gcf_buf_free(&out);

  /* Delta encoding, byte for byte. */
  CHECK(gcf_generic_encode_delta(S(ORDERS_DELTA), &out, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&out, ORDERS_WIRE));

  /* Apply: the result is the new keyed set as JSON, whose root is new_root. */
  CHECK(gcf_generic_apply_delta(S(ORDERS), out.ptr, out.len, &applied, &err) == GCF_STATUS_OK);
  CHECK(applied.ptr && strstr((const char *)applied.ptr, "\"key\":\"id\"") != NULL);
  CHECK(applied.ptr && strstr((const char *)applied.ptr, "\"customer\":\"Dave\"") != NULL);
  CHECK(applied.ptr && strstr((const char *)applied.ptr, "Alice") == NULL);
  CHECK(gcf_generic_pack_root(applied.ptr, applied.len, &root, &err) == GCF_STATUS_OK);
  CHECK(buf_eq(&root, "sha256:ebe554601676e61cd522a5dc13d78499fd20e730353eb3e0b18c7fdc088f0f05"));
  gcf_buf_free(&root);

  /* Under limits: zero-initialised is the defaults; a delta past one is refused. */
  gcf_limits limits = {0};
  gcf_buf again = {NULL, 0};
  CHECK(gcf_generic_apply_delta_with_limits(S(ORDERS), out.ptr, out.len, &limits, &again, &err) == GCF_STATUS_OK);
  CHECK(again.len == applied.len && memcmp(again.ptr, applied.ptr, applied.len) == 0);
  gcf_buf_free(&again);
  limits.max_input_len = out.len - 1;
  st = gcf_generic_apply_delta_with_limits(S(ORDERS), out.ptr, out.len, &limits, &again, &err);
  CHECK(again.ptr == NULL);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "limit_exceeded");
  st = gcf_generic_decode_delta_with_limits(out.ptr, out.len, &limits, &again, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "limit_exceeded");
  limits.max_input_len = 0;
  CHECK(gcf_generic_decode_delta_with_limits(out.ptr, out.len, &limits, &again, &err) == GCF_STATUS_OK);
  gcf_buf_free(&again);

  /* Base mismatch: the delta against the wrong base; nothing is output. */
  gcf_buf none = {NULL, 0};
  st = gcf_generic_apply_delta(applied.ptr, applied.len, out.ptr, out.len, &none, &err);
  CHECK(none.ptr == NULL && none.len == 0);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "base_mismatch");
  /* A claimed new_root the result does not hash to. */
  char *wrong_new = malloc(sizeof ORDERS_WIRE);
  memcpy(wrong_new, ORDERS_WIRE, sizeof ORDERS_WIRE);
  memcpy(strstr(wrong_new, "new_root=sha256:") + 16, "deadbeef", 8);
  st = gcf_generic_apply_delta(S(ORDERS), (const uint8_t *)wrong_new, strlen(wrong_new), &none, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "root_mismatch");
  free(wrong_new);
  /* Malformed deltas: an unknown section, a surplus row, bytes that are not UTF-8. */
  st = gcf_generic_apply_delta(S(ORDERS), S("GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n## bogus [1]{@id}\n1\n"),
                               &none, &err);
  CHECK(gcf_error_line(err) == 2);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "malformed_delta");
  st = gcf_generic_apply_delta(S(ORDERS), S("GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n"
                                            "## added [1]{@id,total}\n1004|75\n1005|80\n"),
                               &none, &err);
  CHECK(gcf_error_line(err) >= 2);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "count_mismatch");
  st = gcf_generic_apply_delta(S(ORDERS), S("GCF profile=generic delta=true key=id\n## removed [1]{@id}\n\xff\n"), &none, &err);
  CHECK(gcf_error_line(err) == 3);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_utf8");
  gcf_buf_free(&out);
  gcf_buf_free(&applied);

  /* Bad JSON and wrong shapes: GCF_STATUS_JSON_ERROR with a position. */
  st = gcf_generic_encode_full(S("{\"key\":\"id\",\"rows\":[}"), NULL, 0, &out, &err);
  CHECK(gcf_error_line(err) == 1 && gcf_error_column(err) == 21);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "json");
  st = gcf_generic_encode_delta(S("{\"key\":\"id\",\"added\":{}}"), &out, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "invalid_input");
  st = gcf_generic_apply_delta(S("{\"rows\":[]}"), S(ORDERS_WIRE), &out, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "invalid_input");
  st = gcf_generic_encode_delta(S("{\"key\":\"id\",\"removed\":[18446744073709551616]}"), &out, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "out_of_range");
  st = gcf_generic_encode_full(S(ORDERS), S("two words"), &out, &err);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
  st = gcf_generic_encode_full(S(ORDERS), S("\xc3\x28"), &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_utf8");
  /* NULLs. */
  st = gcf_generic_encode_full(NULL, 5, NULL, 0, &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_encode_delta(S(ORDERS_DELTA), NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_apply_delta(S(ORDERS), NULL, 3, &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_apply_delta(S(ORDERS), NULL, 0, &out, &err); /* empty delta text */
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "missing_header");
  CHECK(gcf_generic_apply_delta(S(ORDERS), S("nope"), &out, NULL) == GCF_STATUS_DATA_ERROR);
  CHECK(out.ptr == NULL);
}

static void test_generic_respond(void) {
  gcf_buf out = {NULL, 0};
  gcf_error *err = NULL;
  gcf_outcome outcome = GCF_OUTCOME_NONE;
  gcf_status st;

  /* Nothing held: the full payload. */
  CHECK(gcf_generic_delta(NULL, 0, S(ORDERS), S("orders_query"), &outcome, &out, &err) == GCF_STATUS_OK);
  CHECK(outcome == GCF_OUTCOME_FULL);
  CHECK(out.ptr && strstr((const char *)out.ptr, ORDERS_ROOT) != NULL);
  gcf_buf_free(&out);
  /* Held equals current: header-only unchanged. */
  CHECK(gcf_generic_delta(S(ORDERS), S(ORDERS), S("orders_query"), &outcome, &out, &err) == GCF_STATUS_OK);
  CHECK(outcome == GCF_OUTCOME_UNCHANGED);
  CHECK(out.ptr && strstr((const char *)out.ptr, " unchanged=true pack_root=") != NULL);
  CHECK(out.ptr && strstr((const char *)out.ptr, " count=3\n") != NULL);
  gcf_buf_free(&out);
  /* One row of forty changed: a delta, which applies back to the current set. */
  char *held = keyed_set_json(40, "open"), *current = keyed_set_json(40, "shipped");
  CHECK(gcf_generic_delta((const uint8_t *)held, strlen(held), (const uint8_t *)current, strlen(current), NULL, 0,
                          &outcome, &out, &err) == GCF_STATUS_OK);
  CHECK(outcome == GCF_OUTCOME_DELTA);
  CHECK(out.ptr && strstr((const char *)out.ptr, "## changed [1]{@id,status}\n7|shipped\n") != NULL);
  gcf_buf applied = {NULL, 0}, r1 = {NULL, 0}, r2 = {NULL, 0};
  CHECK(gcf_generic_apply_delta((const uint8_t *)held, strlen(held), out.ptr, out.len, &applied, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_pack_root(applied.ptr, applied.len, &r1, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_pack_root((const uint8_t *)current, strlen(current), &r2, &err) == GCF_STATUS_OK);
  CHECK(r1.len == 71 && r1.len == r2.len && memcmp(r1.ptr, r2.ptr, r1.len) == 0);
  gcf_buf_free(&applied);
  gcf_buf_free(&r1);
  gcf_buf_free(&r2);
  gcf_buf_free(&out);
  /* A schema change (other fields) is answered in full. */
  st = gcf_generic_delta(S(ORDERS), (const uint8_t *)current, strlen(current), NULL, 0, &outcome, &out, &err);
  CHECK(st == GCF_STATUS_OK && outcome == GCF_OUTCOME_FULL);
  gcf_buf_free(&out);
  /* Three rows: a one-row delta is not under 60% of the full payload. */
  char *few = keyed_set_json(3, "open"), *few_changed = malloc(strlen(few) + 1);
  memcpy(few_changed, few, strlen(few) + 1); /* row 2's "open" becomes "shut" */
  memcpy(strstr(few_changed, "\"id\":2,\"status\":\"open\"") + 17, "shut", 4);
  st = gcf_generic_delta((const uint8_t *)few, strlen(few), (const uint8_t *)few_changed, strlen(few_changed), NULL, 0,
                         &outcome, &out, &err);
  CHECK(st == GCF_STATUS_OK && outcome == GCF_OUTCOME_FULL);
  CHECK(out.ptr && strstr((const char *)out.ptr, "2|shut\n") != NULL);
  free(few);
  free(few_changed);
  gcf_buf_free(&out);
  free(held);
  free(current);

  /* Errors leave the outcome at NONE and output nothing. */
  st = gcf_generic_delta(S("[1"), S(ORDERS), NULL, 0, &outcome, &out, &err);
  CHECK(outcome == GCF_OUTCOME_NONE && out.ptr == NULL);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "invalid_input");
  st = gcf_generic_delta(NULL, 0, S(ORDERS), NULL, 0, NULL, &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_delta(NULL, 0, NULL, 0, NULL, 0, &outcome, &out, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "json");
  st = gcf_generic_delta(NULL, 0, S(ORDERS), NULL, 0, &outcome, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
}

static void test_generic_delta_session(void) {
  gcf_generic_delta_session *s = NULL;
  gcf_error *err = NULL;
  gcf_buf first = {NULL, 0}, out = {NULL, 0};
  bool is_full = true;
  gcf_status st;
  /* 200 rows: a full payload is about nine times a one-row delta. */
  char *open = keyed_set_json(200, "open"), *shipped = keyed_set_json(200, "shipped");

  CHECK(gcf_generic_delta_session_new((const uint8_t *)open, strlen(open), S("t"), GCF_REANCHOR_FIXED_N, 2, &s, &err) ==
        GCF_STATUS_OK);
  CHECK(s != NULL);
  CHECK(gcf_generic_delta_session_initial_full(s, &first, &err) == GCF_STATUS_OK);
  CHECK(first.ptr && strncmp((const char *)first.ptr, "GCF profile=generic tool=t pack_root=", 37) == 0);
  /* Turn 1: a delta. */
  CHECK(gcf_generic_delta_session_next(s, (const uint8_t *)shipped, strlen(shipped), &out, &is_full, &err) == GCF_STATUS_OK);
  CHECK(!is_full && out.ptr && strstr((const char *)out.ptr, " delta=true ") != NULL);
  gcf_buf_free(&out);
  /* A failing turn leaves the held set where it was, and counts as a turn. */
  is_full = true;
  st = gcf_generic_delta_session_next(s, S("{\"key\":\"id\",\"rows\":[{\"id\":18446744073709551616}]}"), &out, &is_full, &err);
  CHECK(!is_full && out.ptr == NULL);
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "out_of_range");
  st = gcf_generic_delta_session_next(s, S("{\"key\":"), &out, &is_full, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "json");
  /* Turns 2 and 3 failed, so turn 4 re-anchors (n = 2): back to the first set, in full. */
  CHECK(gcf_generic_delta_session_next(s, (const uint8_t *)open, strlen(open), &out, &is_full, &err) == GCF_STATUS_OK);
  CHECK(is_full && out.len == first.len && memcmp(out.ptr, first.ptr, out.len) == 0);
  gcf_buf_free(&out);
  /* Required outputs and the session itself. */
  st = gcf_generic_delta_session_next(s, (const uint8_t *)open, strlen(open), &out, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_delta_session_next(NULL, (const uint8_t *)open, strlen(open), &out, &is_full, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_delta_session_initial_full(NULL, &out, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_delta_session_initial_full(s, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  gcf_generic_delta_session_free(s);
  gcf_generic_delta_session_free(NULL);
  gcf_buf_free(&first);

  /* Size guard: deltas until their sum reaches a full payload's size. */
  s = NULL;
  CHECK(gcf_generic_delta_session_new((const uint8_t *)open, strlen(open), NULL, 0, GCF_REANCHOR_SIZE_GUARD, 0, &s, &err) ==
        GCF_STATUS_OK);
  int turns = 0, fulls = 0;
  for (int i = 0; i < 60 && s; i++) {
    const char *next = i % 2 ? open : shipped;
    if (gcf_generic_delta_session_next(s, (const uint8_t *)next, strlen(next), &out, &is_full, &err) != GCF_STATUS_OK) break;
    turns++;
    fulls += is_full;
    gcf_buf_free(&out);
  }
  CHECK(turns == 60);
  CHECK(fulls >= 3 && fulls <= 12);
  if (!(fulls >= 3 && fulls <= 12)) fprintf(stderr, "  %d full payloads in %d turns\n", fulls, turns);
  gcf_generic_delta_session_free(s);

  /* Creation errors: no session is output. */
  s = (gcf_generic_delta_session *)&turns; /* reset on entry */
  st = gcf_generic_delta_session_new((const uint8_t *)open, strlen(open), NULL, 0, 9, 0, &s, &err);
  CHECK(s == NULL);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  st = gcf_generic_delta_session_new(S("{\"rows\":[]}"), NULL, 0, GCF_REANCHOR_FIXED_N, 0, &s, &err);
  expect_error(st, err, GCF_STATUS_JSON_ERROR, "invalid_input");
  st = gcf_generic_delta_session_new((const uint8_t *)open, strlen(open), NULL, 0, GCF_REANCHOR_FIXED_N, 0, NULL, &err);
  expect_error(st, err, GCF_STATUS_INVALID_ARGUMENT, "invalid_input");
  free(open);
  free(shipped);
}

/* The stream lifecycle is the core's and the same for both profiles (and for
 * Rust and Go): a refused call writes nothing and leaves the stream usable;
 * a refused write poisons it, and every later call, flush and finish
 * included, is GCF_STATUS_INVALID_STATE without reaching the callback. */
static void expect_poisoned(gcf_status st, gcf_error *err) {
  CHECK(err && str_eq(gcf_error_class(err), "state"));
  CHECK(err && strstr(gcf_error_message(err), "earlier write to the sink failed") != NULL);
  expect_error(st, err, GCF_STATUS_INVALID_STATE, "invalid_state");
}

static void test_poisoned_streams_agree(void) {
  gcf_error *err = NULL;
  gcf_status st;
  /* Graph. */
  sink_t gs = {NULL, 0, 0, 0, 0, 0}; /* refuses the first write */
  gcf_graph_stream *g = NULL;
  CHECK(gcf_graph_stream_new(sink_write, &gs, NULL, &g, &err) == GCF_STATUS_OK);
  st = gcf_graph_stream_write_symbol(g, S("has space"), S("function"), 0.5, S("x"), 0, NULL, &err);
  CHECK(err && str_eq(gcf_error_class(err), "input"));
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "invalid_input");
  CHECK(gcf_graph_stream_write_symbol(g, S("pkg.A"), S("function"), 0.5, S("x"), 0, NULL, &err) == GCF_STATUS_OK);
  CHECK(gs.calls == 0);
  st = gcf_graph_stream_flush(g, &err);
  CHECK(err && str_eq(gcf_error_class(err), "sink") && strstr(gcf_error_message(err), "42") != NULL);
  expect_error(st, err, GCF_STATUS_SINK_ERROR, "sink");
  CHECK(gs.calls == 1);
  st = gcf_graph_stream_write_symbol(g, S("pkg.B"), S("function"), 0.5, S("x"), 0, NULL, &err);
  expect_poisoned(st, err);
  st = gcf_graph_stream_write_edge(g, 0, 0, S("calls"), NULL, 0, &err);
  expect_poisoned(st, err);
  st = gcf_graph_stream_write_location(g, 0, S("f.go"), 1, 1, 0, 0, &err);
  expect_poisoned(st, err);
  st = gcf_graph_stream_flush(g, &err);
  expect_poisoned(st, err);
  st = gcf_graph_stream_finish(g, &err);
  expect_poisoned(st, err);
  CHECK(gs.calls == 1);
  gcf_graph_stream_free(g);

  /* Generic: the same steps, the same answers. */
  sink_t ns = {NULL, 0, 0, 0, 0, 0};
  gcf_generic_stream *w = NULL;
  gcf_str fields[1] = {{"a", 1}};
  CHECK(gcf_generic_stream_new(sink_write, &ns, NULL, &w, &err) == GCF_STATUS_OK);
  CHECK(gcf_generic_stream_begin_table(w, NULL, 0, fields, 1, &err) == GCF_STATUS_OK);
  gcf_cell two[2] = {cell_int(1), cell_int(2)};
  st = gcf_generic_stream_row(w, two, 2, &err);
  CHECK(err && str_eq(gcf_error_class(err), "syntax"));
  expect_error(st, err, GCF_STATUS_DATA_ERROR, "row_width_mismatch");
  CHECK(gcf_generic_stream_row(w, two, 1, &err) == GCF_STATUS_OK);
  CHECK(ns.calls == 0);
  st = gcf_generic_stream_flush(w, &err);
  CHECK(err && str_eq(gcf_error_class(err), "sink") && strstr(gcf_error_message(err), "42") != NULL);
  expect_error(st, err, GCF_STATUS_SINK_ERROR, "sink");
  CHECK(ns.calls == 1);
  st = gcf_generic_stream_row(w, two, 1, &err);
  expect_poisoned(st, err);
  st = gcf_generic_stream_end_table(w, &err);
  expect_poisoned(st, err);
  st = gcf_generic_stream_flush(w, &err);
  expect_poisoned(st, err);
  st = gcf_generic_stream_finish(w, &err);
  expect_poisoned(st, err);
  CHECK(ns.calls == 1);
  gcf_generic_stream_free(w);
}

/* The constant-column and grouped-table error categories, and the expansion
 * budget (Limits::max_expansion), through the C ABI with line and column. */
static void expect_at(const char *text, size_t len, const char *category, size_t line, size_t column) {
  gcf_buf json = {NULL, 0};
  gcf_error *err = NULL;
  gcf_status st = gcf_generic_decode((const uint8_t *)text, len, &json, &err);
  CHECK(json.ptr == NULL);
  CHECK(gcf_error_line(err) == line && gcf_error_column(err) == column);
  if (gcf_error_line(err) != line || gcf_error_column(err) != column)
    fprintf(stderr, "  %s: line %zu column %zu\n", category, gcf_error_line(err), gcf_error_column(err));
  expect_error(st, err, GCF_STATUS_DATA_ERROR, category);
}

static void test_generic_constant_errors(void) {
  static const char *const H = "GCF profile=generic\n";
  static const struct {
    const char *body, *category;
    size_t line, column;
  } cases[] = {
      {"## [1]{a,b=}\n1\n", "invalid_const_value", 2, 12},
      {"## [1]{a=1,b=2}\n1\n", "no_bare_column", 2, 7},
      {"## [1]{id,g} group=g\ng=a [1]\n1\n", "invalid_group_header", 2, 14},
      {"## [2]{@id,g} group=g\ng=a [1]\n1\ng=a [1]\n2\n", "duplicate_group", 5, 1},
  };
  char text[128];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int n = snprintf(text, sizeof text, "%s%s", H, cases[i].body);
    CHECK(n > 0 && (size_t)n < sizeof text);
    expect_at(text, (size_t)n, cases[i].category, cases[i].line, cases[i].column);
  }

  /* A 64 KiB constant over 2,000 one-digit rows would decode to 128 MiB of
   * copies; the default budget (64 MiB + 64 x input length) stops at the row
   * that passes it. Each row costs the constant plus its 56-byte map entry
   * (64-bit targets). */
  enum { BIG = 64 * 1024, ROWS = 2000 };
  static const char head[] = "GCF profile=generic\n## [2000]{a,b=\"";
  static const char tail[] = "\"}\n";
  size_t len = strlen(head) + BIG + strlen(tail) + 2 * ROWS;
  char *big = malloc(len);
  CHECK(big != NULL);
  if (big == NULL) return;
  char *p = big;
  memcpy(p, head, strlen(head));
  p += strlen(head);
  memset(p, 'x', BIG);
  p += BIG;
  memcpy(p, tail, strlen(tail));
  p += strlen(tail);
  for (int i = 0; i < ROWS; i++) {
    *p++ = '1';
    *p++ = '\n';
  }
  CHECK((size_t)(p - big) == len);
  size_t budget = ((size_t)64 << 20) + 64 * len;
  size_t row = budget / (BIG + 56) + 1;
  CHECK(row < ROWS);
  expect_at(big, len, "limit_exceeded", 2 + row, 1);
  free(big);
}

int main(void) {
  test_version();
  test_graph_encode_decode();
  test_graph_errors();
  test_graph_encode_payload();
  test_graph_decode_packed();
  test_graph_delta_pack_root();
  test_graph_session();
  test_graph_session_decoder();
  test_graph_stream();
  test_graph_stream_bare_refs();
  test_failing_callback();
  test_million_row_stream();
  test_generic();
  test_generic_constant_columns_and_groups();
  test_generic_constant_errors();
  test_generic_stream();
  test_generic_delta();
  test_generic_respond();
  test_generic_delta_session();
  test_poisoned_streams_agree();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
