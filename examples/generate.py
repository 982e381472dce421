#!/usr/bin/env python3
"""Generates the example inputs of this folder, deterministically.

Run once from the repository root (`python3 examples/generate.py`); the
outputs are committed, tests only read them. A fixed seed makes every run
byte-identical.
"""

import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = "github.com/acme/shop"
PROVENANCE = ["lsp_resolved", "lsp_resolved", "ast_inferred", "rwr", "grep_heuristic"]

PACKAGES = {
    "internal/auth": {
        "types": {"Server": ["Handle", "Login", "Logout", "Refresh"], "TokenStore": ["Get", "Put", "Revoke"],
                  "Claims": ["Valid"]},
        "funcs": ["NewServer", "ParseToken", "HashPassword", "CheckPassword"],
        "ifaces": ["Authenticator"], "vars": ["ErrExpired", "ErrInvalidToken"], "consts": ["TokenTTL"],
        "fields": {"Claims": ["Subject", "ExpiresAt"]},
        "routes": ["LoginRoute", "LogoutRoute"],
    },
    "internal/cart": {
        "types": {"Cart": ["Add", "Remove", "Total", "Clear"], "Service": ["Get", "Checkout"], "Item": ["Subtotal"]},
        "funcs": ["NewService", "MergeCarts"],
        "ifaces": ["Repository"], "vars": ["ErrEmptyCart"], "consts": ["MaxItems"],
        "fields": {"Item": ["SKU", "Quantity", "Price"]},
        "routes": ["AddItemRoute", "CheckoutRoute"],
    },
    "internal/orders": {
        "types": {"Order": ["Validate", "Total", "Cancel"], "Service": ["Place", "Get", "List", "Ship"],
                  "Repository": ["Insert", "FindByID", "FindByCustomer", "UpdateStatus"]},
        "funcs": ["NewService", "NewRepository", "StatusFromString"],
        "ifaces": ["Notifier", "Store"], "vars": ["ErrNotFound", "ErrAlreadyShipped"], "consts": ["StatusPending", "StatusShipped"],
        "fields": {"Order": ["ID", "CustomerID", "Lines", "Status"]},
        "routes": ["PlaceOrderRoute", "GetOrderRoute", "ListOrdersRoute"],
    },
    "internal/payments": {
        "types": {"Gateway": ["Charge", "Refund", "Capture"], "Webhook": ["Verify", "Dispatch"]},
        "funcs": ["NewGateway", "AmountInCents"],
        "ifaces": ["Processor"], "vars": ["ErrDeclined"], "consts": ["Currency"],
        "fields": {"Gateway": ["APIKey", "Client"]},
        "routes": ["WebhookRoute"],
    },
    "internal/catalog": {
        "types": {"Product": ["Price", "InStock"], "Index": ["Search", "Add", "Remove"], "Service": ["Get", "List"]},
        "funcs": ["NewIndex", "NewService", "Slugify"],
        "ifaces": ["Searcher"], "vars": ["ErrNoSuchProduct"], "consts": ["PageSize"],
        "fields": {"Product": ["SKU", "Name", "PriceCents"]},
        "routes": ["SearchRoute", "ProductRoute"],
    },
    "internal/inventory": {
        "types": {"Ledger": ["Reserve", "Release", "Available"], "Warehouse": ["Stock"]},
        "funcs": ["NewLedger"],
        "ifaces": ["StockSource"], "vars": ["ErrOutOfStock"], "consts": ["ReservationTTL"],
        "fields": {"Warehouse": ["Code", "Region"]},
        "routes": [],
    },
    "internal/users": {
        "types": {"User": ["DisplayName"], "Store": ["Create", "FindByEmail", "Update"]},
        "funcs": ["NewStore", "NormalizeEmail"],
        "ifaces": ["Directory"], "vars": ["ErrDuplicateEmail"], "consts": [],
        "fields": {"User": ["ID", "Email", "CreatedAt"]},
        "routes": ["SignupRoute"],
    },
    "pkg/httpx": {
        "types": {"Router": ["Handle", "ServeHTTP", "Use"], "ResponseWriter": ["WriteJSON", "WriteError"]},
        "funcs": ["NewRouter", "Recover", "RequestID", "Logging"],
        "ifaces": ["Middleware"], "vars": [], "consts": ["HeaderRequestID"],
        "fields": {}, "routes": [],
    },
    "pkg/db": {
        "types": {"Pool": ["Query", "Exec", "Begin", "Close"], "Tx": ["Commit", "Rollback"]},
        "funcs": ["Open", "Migrate", "WithTx"],
        "ifaces": ["Querier"], "vars": ["ErrNoRows"], "consts": ["DefaultMaxConns"],
        "fields": {}, "routes": [],
    },
    "internal/shipping": {
        "types": {"Carrier": ["Quote", "Book", "Track"], "Label": ["PDF"], "Service": ["Ship", "Rates"]},
        "funcs": ["NewService", "ParseTrackingNumber", "DimensionalWeight"],
        "ifaces": ["RateSource"], "vars": ["ErrUnsupportedRegion"], "consts": ["DefaultCarrier"],
        "fields": {"Label": ["TrackingNumber", "Carrier"]},
        "routes": ["RatesRoute", "TrackRoute"],
    },
    "internal/notifications": {
        "types": {"Mailer": ["Send", "SendTemplate"], "Queue": ["Enqueue", "Drain"], "Template": ["Render"]},
        "funcs": ["NewMailer", "NewQueue", "OrderConfirmation", "ShippingUpdate"],
        "ifaces": ["Sender"], "vars": ["ErrBounced"], "consts": ["MaxRetries"],
        "fields": {"Template": ["Subject", "Body"]},
        "routes": [],
    },
    "internal/search": {
        "types": {"Query": ["Normalize", "Terms"], "Ranker": ["Score", "Rank"], "Suggester": ["Suggest"]},
        "funcs": ["Tokenize", "Stem", "BM25"],
        "ifaces": ["Scorer"], "vars": [], "consts": ["MinTermLength"],
        "fields": {"Query": ["Text", "Filters"]},
        "routes": ["SuggestRoute"],
    },
    "pkg/config": {
        "types": {"Config": ["Validate", "DSN"], "Loader": ["Load", "Watch"]},
        "funcs": ["FromEnv", "FromFile", "Default"],
        "ifaces": ["Source"], "vars": ["ErrMissingKey"], "consts": ["EnvPrefix"],
        "fields": {"Config": ["HTTPAddr", "DatabaseURL", "StripeKey"]},
        "routes": [],
    },
    "pkg/log": {
        "types": {"Logger": ["Info", "Error", "With"]},
        "funcs": ["New", "FromContext", "WithContext"],
        "ifaces": [], "vars": ["Discard"], "consts": ["LevelDebug", "LevelInfo"],
        "fields": {}, "routes": [],
    },
    "cmd/shopd": {
        "types": {}, "funcs": ["main", "run", "loadConfig", "wireServices"],
        "ifaces": [], "vars": ["version"], "consts": [], "fields": {}, "routes": [],
    },
}
EXTERNALS = ["net/http.Handler", "net/http.Request", "database/sql.DB", "context.Context",
             "encoding/json.Marshal", "time.Duration", "github.com/stripe/stripe-go.Client"]
TABLES = ["orders", "order_lines", "users", "products", "reservations"]


def code_graph(rng):
    symbols = []
    for pkg, spec in PACKAGES.items():
        base = f"{MODULE}/{pkg}"
        symbols.append((base, "package"))
        for t, methods in spec["types"].items():
            symbols.append((f"{base}.{t}", "type"))
            symbols += [(f"{base}.{t}.{m}", "method") for m in methods]
        for t, fields in spec["fields"].items():
            symbols += [(f"{base}.{t}.{f}", "field") for f in fields]
        symbols += [(f"{base}.{f}", "function") for f in spec["funcs"]]
        symbols += [(f"{base}.{i}", "interface") for i in spec["ifaces"]]
        symbols += [(f"{base}.{v}", "var") for v in spec["vars"]]
        symbols += [(f"{base}.{c}", "const") for c in spec["consts"]]
        symbols += [(f"{base}.{r}", "route_handler") for r in spec["routes"]]
        file = pkg.split("/")[-1]
        symbols.append((f"{base}/{file}.go", "file"))
    symbols += [(e, "external") for e in EXTERNALS]
    symbols += [(f"{MODULE}/migrations.{t}", "table") for t in TABLES]
    symbols.append((f"{MODULE}/deploy.shopd", "service"))

    target = f"{MODULE}/internal/auth.Server.Handle"
    out = []
    for name, kind in symbols:
        if name == target or name in (f"{MODULE}/internal/auth.Server.Login", f"{MODULE}/internal/auth.ParseToken"):
            distance = 0
        elif "/internal/auth" in name:
            distance = 1
        elif "/internal/" in name or "/pkg/httpx" in name:
            distance = 2
        else:
            distance = 3
        score = round(max(0.05, 0.95 - 0.22 * distance - rng.random() * 0.18), 2)
        out.append({"qualifiedName": name, "kind": kind, "score": score,
                    "provenance": rng.choice(PROVENANCE), "distance": distance})
    out.sort(key=lambda s: (s["distance"], -s["score"], s["qualifiedName"]))

    names = [s["qualifiedName"] for s in out]
    kinds = {s["qualifiedName"]: s["kind"] for s in out}
    edges, seen = [], set()
    for s in out:
        for _ in range(3):
            other = rng.choice(names)
            if other == s["qualifiedName"]:
                continue
            k = kinds[other]
            edge_type = {"interface": "implements", "type": "references", "field": "reads",
                         "table": "writes", "package": "imports", "file": "contains",
                         "external": "calls"}.get(k, "calls")
            key = (s["qualifiedName"], other, edge_type)
            if key in seen:
                continue
            seen.add(key)
            status = rng.choice(["", "", "", "", "", "", "stale"])
            edges.append({"source": s["qualifiedName"], "target": other, "edgeType": edge_type, "status": status})
    locations = []
    for s in out[:8]:
        if s["kind"] in ("method", "function", "type"):
            pkg, _, rest = s["qualifiedName"].rpartition("/")[2].partition(".")
            line = rng.randint(10, 400)
            locations.append({"qualifiedName": s["qualifiedName"],
                              "file": f"internal/{pkg}/{pkg}.go" if "internal" in s["qualifiedName"] else f"{pkg}.go",
                              "line": line, "column": 1,
                              "endLine": line + rng.randint(5, 60), "endColumn": 2})
    return {"tool": "context_for_task", "tokenBudget": 8000, "tokensUsed": 3120,
            "symbols": out, "edges": edges, "locations": locations}


FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Niklaus",
         "Margaret", "Dennis", "Sophie", "Tim", "Lynn", "Guido"]
LAST = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Perlman",
        "Wirth", "Hamilton", "Ritchie", "Wilson", "Berners-Lee", "Conway", "van Rossum"]
CITIES = [("Zürich", "CH"), ("Paris", "FR"), ("São Paulo", "BR"), ("Kraków", "PL"), ("Austin", "US"),
          ("Osaka", "JP"), ("Cape Town", "ZA"), ("Toronto", "CA")]
PRODUCTS = [("KB-001", "Mechanical keyboard", 129.5), ("MS-010", "Wireless mouse", 39.99),
            ("MN-270", "27\" monitor", 319.0), ("HD-002", "USB-C hub, 7 ports", 54.25),
            ("CB-100", "Cable | braided, 2m", 12.0), ("LP-014", "Laptop stand", 45.0),
            ("HS-300", "Headset \"Pro\"", 89.9), ("WC-720", "Webcam 1080p", 64.0)]
TAGS = ["gift", "express", "b2b", "fragile", "first-order", "loyalty", "backorder"]
STATUSES = ["pending", "paid", "shipped", "delivered", "cancelled"]


def orders(rng):
    result = []
    for i in range(50):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        city, country = rng.choice(CITIES)
        lines = []
        for sku, name, price in rng.sample(PRODUCTS, rng.randint(1, 4)):
            lines.append({"sku": sku, "name": name, "quantity": rng.randint(1, 3), "unitPrice": price})
        total = round(sum(l["quantity"] * l["unitPrice"] for l in lines), 2)
        order = {
            "id": 10001 + i,
            "placedAt": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
            "status": rng.choice(STATUSES),
            "customer": {
                "id": 500 + rng.randint(0, 40),
                "name": f"{first} {last}",
                "email": f"{first.lower()}.{last.lower().replace(' ', '')}@example.com",
                "address": {"city": city, "country": country},
                "vip": rng.random() < 0.2,
            },
            "tags": sorted(rng.sample(TAGS, rng.randint(0, 3))),
            "lines": lines,
            "total": total,
            "couponCode": rng.choice([None, None, None, "WELCOME10", "SPRING-24"]),
        }
        result.append(order)
    return {"orders": result, "generatedBy": "examples/generate.py", "currency": "EUR"}


def stream_lines(graph):
    """Symbols first, then edges naming symbols by id (constant memory) and by name (readable)."""
    ids = {s["qualifiedName"]: i for i, s in enumerate(graph["symbols"])}
    lines = [json.dumps(s, ensure_ascii=False) for s in graph["symbols"]]
    for e in graph["edges"]:
        lines.append(json.dumps({"sourceId": ids[e["source"]], "targetId": ids[e["target"]],
                                 "source": e["source"], "target": e["target"],
                                 "edgeType": e["edgeType"], "status": e["status"]}, ensure_ascii=False))
    for loc in graph["locations"]:
        lines.append(json.dumps({"symbolId": ids[loc["qualifiedName"]], **{k: v for k, v in loc.items()
                                                                         if k != "qualifiedName"}}))
    return lines


DEPARTMENTS = ["Engineering", "Sales", "Marketing", "Support", "Finance", "Legal, Compliance"]


def employees(rng):
    rows = []
    for i in range(120):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        row = {"id": 1 + i, "name": f"{first} {last}", "department": rng.choice(DEPARTMENTS),
               "salary": rng.randint(48, 190) * 1000, "rating": round(rng.uniform(2.5, 5.0), 1),
               "remote": rng.random() < 0.4, "manager": None if i < 3 else rng.randint(1, min(i, 20))}
        if rng.random() < 0.1:
            del row["rating"]  # not yet reviewed: written as `~` (missing), not `-` (null)
        rows.append(json.dumps(row, ensure_ascii=False))
    return rows


def write(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    rng = random.Random(20240611)
    graph = code_graph(rng)
    write("codegraph.json", json.dumps(graph, indent=2, ensure_ascii=False) + "\n")
    write("orders.json", json.dumps(orders(rng), indent=2, ensure_ascii=False) + "\n")
    write("stream.jsonl", "\n".join(stream_lines(graph)) + "\n")
    write("employees.jsonl", "\n".join(employees(rng)) + "\n")


if __name__ == "__main__":
    main()
