"""Kind abbreviations of the graph profile (spec section 5)."""

from __future__ import annotations

from typing import Dict

#: Full kind name -> the abbreviation written on the wire.
KIND_ABBREV: Dict[str, str] = dict(
    function="fn",
    type="type",
    method="method",
    interface="iface",
    var="var",
    const="const",
    resource="resource",
    table="table",
    selector="selector",
    field="field",
    route_handler="route",
    external="ext",
    file="file",
    package="pkg",
    service="svc",
)
KIND_ABBREV["class"] = "class"

#: Abbreviation -> full kind name.
KIND_EXPAND: Dict[str, str] = {short: full for full, short in KIND_ABBREV.items()}
