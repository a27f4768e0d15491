"""Hostile one-line inputs of about 1 MB: shapes that make a backtracking regex blow up."""
ADVERSARIAL = {
    "letters": "a" * 1_000_000,
    "slashes": "a/" * 500_000,
    "rooted": "/a" * 500_000,
    "quotes": "'" * 1_000_000,
    "open-quotes": "'a b" * 250_000,
    "hex": "0x" * 500_000,
    "dots": "1." * 500_000,
    "escapes": "\x1b[" * 500_000,
    "rank": "[rank0]:" * 125_000,
    "windows": "C:\\a" * 250_000,
    "symbols": "s1 " * 333_333,
    "timestamps": "2024-05-01T10:00:00 " * 50_000,
    "glog": "W1121 16:10:45.281000 2476 " * 37_000,
    "header-like": "a." * 499_999 + "Error:",
    "warning-like": "x:1: " * 200_000 + "UserWarning: x",
    "colons": ":" * 1_000_000,
}
