"""RFC 6570 URI templates for resource templates: {var} and {+var}."""

from __future__ import annotations

import pytest

from mcpcast._uritemplate import UriTemplate, UriTemplateError, is_template


@pytest.mark.parametrize(("template", "variables"), [
    ("activity://{id}", ("id",)),
    ("test://template/{id}/data", ("id",)),
    ("user://{user}/activity/{activity_id}", ("user", "activity_id")),
    ("files://{+path}", ("path",)),
    ("x://{a.b}/{a.b}", ("a.b",)),
    ("static://fixed", ()),
])
def test_variables_in_order_without_repeats(template: str, variables: tuple[str, ...]) -> None:
    assert UriTemplate(template).variables == variables


@pytest.mark.parametrize(("template", "uri", "expected"), [
    ("activity://{id}", "activity://42", {"id": "42"}),
    ("activity://{id}", "activity://a-b_c.d~e", {"id": "a-b_c.d~e"}),
    ("test://template/{id}/data", "test://template/abc/data", {"id": "abc"}),
    ("user://{user}/activity/{aid}", "user://ann/activity/7", {"user": "ann", "aid": "7"}),
    # percent-encoded values come back decoded, including '/' and UTF-8
    ("activity://{id}", "activity://a%2Fb", {"id": "a/b"}),
    ("activity://{id}", "activity://caf%C3%A9%20run", {"id": "café run"}),
    ("search://{q}", "search://100%25", {"q": "100%"}),
    # reserved expansion spans segments
    ("files://{+path}", "files://a/b/c.txt", {"path": "a/b/c.txt"}),
    ("files://{+path}/raw", "files://a/b/raw", {"path": "a/b"}),
    ("files://{+path}", "files://a%20b/c", {"path": "a b/c"}),
    # a repeated variable must repeat the same value
    ("x://{id}/{id}", "x://7/7", {"id": "7"}),
    ("static://fixed", "static://fixed", {}),
    # regex metacharacters in the literal part are literal
    ("q://a.b+c/{id}", "q://a.b+c/1", {"id": "1"}),
])
def test_match(template: str, uri: str, expected: dict[str, str]) -> None:
    assert UriTemplate(template).match(uri) == expected


@pytest.mark.parametrize(("template", "uri"), [
    ("activity://{id}", "activity://"),                # empty value
    ("activity://{id}", "activity://42/"),             # trailing slash
    ("activity://{id}", "activity://a/b"),             # level-1 variables never span '/'
    ("activity://{id}", "activity://42?x=1"),          # a query is not part of the value
    ("activity://{id}", "activity://42#frag"),
    ("activity://{id}", "other://42"),                 # wrong scheme
    ("activity://{id}", "xactivity://42"),             # match is anchored at both ends
    ("test://template/{id}/data", "test://template/abc/data/"),
    ("test://template/{id}/data", "test://template/abc"),
    ("test://template/{id}/data", "test://template//data"),
    ("files://{+path}", "files://"),
    ("x://{id}/{id}", "x://7/8"),
    ("q://a.b+c/{id}", "q://aXb+c/1"),                 # '.' is not a wildcard
    ("activity://{id}", "activity://%FF"),             # decodes to invalid UTF-8
    ("static://fixed", "static://fixed/"),
])
def test_no_match(template: str, uri: str) -> None:
    assert UriTemplate(template).match(uri) is None


@pytest.mark.parametrize(("template", "values", "uri"), [
    ("activity://{id}", {"id": 42}, "activity://42"),
    ("activity://{id}", {"id": "a/b c"}, "activity://a%2Fb%20c"),
    ("activity://{id}", {"id": "café"}, "activity://caf%C3%A9"),
    ("activity://{id}", {"id": "a-b_c.d~e"}, "activity://a-b_c.d~e"),
    ("user://{u}/activity/{a}", {"u": "ann", "a": 7, "extra": 1}, "user://ann/activity/7"),
    ("files://{+path}", {"path": "a/b c/d.txt"}, "files://a/b%20c/d.txt"),
    ("files://{+path}", {"path": "already%20encoded"}, "files://already%20encoded"),
    ("files://{+path}", {"path": "100%"}, "files://100%25"),
])
def test_expand(template: str, values: dict[str, object], uri: str) -> None:
    assert UriTemplate(template).expand(**values) == uri


@pytest.mark.parametrize(("template", "value"), [
    ("activity://{id}", "a/b?c#d é%"),
    ("files://{+path}", "dir/sub dir/é.txt"),
])
def test_expand_then_match_round_trips(template: str, value: str) -> None:
    compiled = UriTemplate(template)
    name = compiled.variables[0]
    assert compiled.match(compiled.expand(**{name: value})) == {name: value}


def test_expand_without_a_value_names_the_variable() -> None:
    with pytest.raises(KeyError, match="'id'"):
        UriTemplate("activity://{id}").expand()


@pytest.mark.parametrize("template", [
    "x://{#frag}", "x://{?q}", "x://{a,b}", "x://{a*}", "x://{/seg}", "x://{}",
    "x://{a", "x://a}", "x://{a b}",
])
def test_unsupported_or_malformed_templates_are_refused(template: str) -> None:
    with pytest.raises(UriTemplateError, match="URI template"):
        UriTemplate(template)


@pytest.mark.parametrize(("text", "expected"), [
    ("activity://{id}", True),
    ("files://{+path}", True),
    ("activity://42", False),
    ("config://settings", False),
    ("x://{}", True),   # malformed, but a template: UriTemplate() then refuses it
    ("x://{a", True),
])
def test_is_template(text: str, expected: bool) -> None:
    assert is_template(text) is expected


def test_templates_compare_by_their_text() -> None:
    assert UriTemplate("a://{x}") == UriTemplate("a://{x}")
    assert UriTemplate("a://{x}") != UriTemplate("a://{y}")
