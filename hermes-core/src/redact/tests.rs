use super::*;

fn masked(text: &str) -> String {
    mask(text).into_owned()
}

#[test]
fn each_kind_is_masked() {
    assert_eq!(
        masked("mail li.lei+cv@mail.example.co.uk now"),
        "mail [EMAIL] now"
    );
    assert_eq!(masked("手机：13812345678。"), "手机：[PHONE]。");
    assert_eq!(masked("id 11010519491231002X ok"), "id [ID_NUMBER] ok");
    assert_eq!(masked("id 110105194912310021?"), "id 110105194912310021?");
    assert_eq!(masked("id 110105194912310029."), "id 110105194912310029.");
    assert_eq!(masked("card 4111111111111111"), "card [CARD]");
    assert_eq!(masked("card 4111-1111-1111-1111!"), "card [CARD]!");
    assert_eq!(masked("amex 3782 822463 10005"), "amex [CARD]");
    assert_eq!(
        masked("OPENAI_API_KEY=sk-proj-AbCdEf0123456789xyzXYZ"),
        "OPENAI_API_KEY=[API_KEY]"
    );
    assert_eq!(
        masked("token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 end"),
        "token [API_KEY] end"
    );
    assert_eq!(masked("aws AKIAIOSFODNN7EXAMPLE"), "aws [API_KEY]");
    assert_eq!(
        masked("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"),
        "Authorization: Bearer [TOKEN]"
    );
}

#[test]
fn ordinary_numbers_and_words_stay() {
    for text in [
        "at 1700000000 (unix seconds) and 1700000000123 ms",
        "order 12345678901 shipped",
        "version 1.2.3, build 20240301",
        "uuid 550e8400-e29b-41d4-a716-446655440000",
        "4111111111111112 fails Luhn",
        "prefix5555555555554444suffix",
        "phone-like 138123456789 is twelve digits",
        "user@localhost has no domain",
        "sk-short",
        "the bearer of bad news",
        "AKIAIOSFODNN7EXAMPL is 19",
        "room 13812345678x",
    ] {
        assert_eq!(masked(text), text, "{text}");
    }
}

#[test]
fn a_phone_after_a_country_code_is_found() {
    assert_eq!(masked("call 0086-13812345678"), "call 0086-[PHONE]");
    assert_eq!(masked("+86 13812345678"), "+86 [PHONE]");
}

#[test]
fn kinds_can_be_left_unmasked_and_findings_do_not_overlap() {
    let redactor = Redactor::new().without(PiiKind::Email);
    assert_eq!(redactor.mask("a@b.io 13812345678"), "a@b.io [PHONE]");
    let found = Redactor::new().find("x sk-abcdefghijklmnopqrstuv y a@b.io");
    assert_eq!(
        found.iter().map(|f| f.kind).collect::<Vec<_>>(),
        [PiiKind::ApiKey, PiiKind::Email]
    );
}

#[test]
fn json_strings_are_masked_in_place() {
    let mut value = serde_json::json!({
        "to": "li.lei@example.com",
        "list": [{"phone": "13812345678"}, 42],
        "13812345678": "keys stay",
    });
    Redactor::new().mask_json(&mut value);
    assert_eq!(
        value,
        serde_json::json!({
            "to": "[EMAIL]",
            "list": [{"phone": "[PHONE]"}, 42],
            "13812345678": "keys stay",
        })
    );
}

#[test]
fn clean_text_is_borrowed() {
    assert!(matches!(mask("nothing to see"), Cow::Borrowed(_)));
}
