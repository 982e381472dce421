"""Exception classes raised by gcf.

Every failure carries the spec's error category (``count_mismatch``,
``out_of_range``, ...) and, when the input position is known, the 1-based
line and column. ``str(err)`` is ``"category: detail"``, the form gcf-python
2.8.0 uses, so code matching on the message prefix keeps working.
"""

from __future__ import annotations

from typing import Optional


class GcfError(ValueError):
    """A GCF operation failed. A ``ValueError``, as gcf-python 2.8.0 raises."""

    category: str
    line: Optional[int]
    column: Optional[int]

    def __init__(
        self,
        message: str = "",
        category: str = "invalid_input",
        line: Optional[int] = None,
        column: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.category = category
        self.line = line
        self.column = column

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (str(self), self.category, self.line, self.column))


class DecodeError(GcfError):
    """GCF text could not be decoded."""
