import pytest

from kb.textin import MAX_INPUT_BYTES, EmptyInput, read_input


@pytest.mark.parametrize("data", ["", b"", "   \n\t\n", b"\n\n"])
def test_empty_input_is_a_clear_error(data):
    with pytest.raises(EmptyInput, match="no input"):
        read_input(data)


def test_pure_binary_is_a_clear_error_not_a_crash():
    with pytest.raises(EmptyInput, match="no readable text"):
        read_input(bytes(range(0, 9)) * 100 + b"\x00\x01\x02")


def test_invalid_utf8_keeps_the_readable_part():
    data = b"\xff\xfe\xfa garbage \x80\x81\nAssertionError: Guard failed: x.size()[0] == 2\n"
    inp = read_input(data)
    assert "AssertionError: Guard failed: x.size()[0] == 2" in inp.text
    assert "\ufffd" not in inp.text


def test_mostly_binary_input_is_reported():
    data = bytes([0x80 + (i % 64) for i in range(2000)]) + b"\nValueError: boom\n"
    inp = read_input(data)
    assert "ValueError: boom" in inp.text
    assert any("not text" in n for n in inp.notes)


def test_huge_input_keeps_the_tail_and_says_so():
    filler = ("INFO step ok\n" * 200_000).encode()
    data = filler + b"AssertionError: Guard failed: x.size()[0] == 2\n"
    assert len(data) > MAX_INPUT_BYTES
    inp = read_input(data)
    assert inp.truncated
    assert inp.text.rstrip().endswith("AssertionError: Guard failed: x.size()[0] == 2")
    assert len(inp.text.encode()) <= MAX_INPUT_BYTES
    assert not inp.text.startswith("NFO")  # starts on a line boundary
    assert any("analysed only its last" in n for n in inp.notes)


def test_windows_line_endings_are_normalised():
    assert read_input(b"a\r\nb\rc").text == "a\nb\nc"
