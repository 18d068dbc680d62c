//! Properties of the resolver on generated input.

use absolve::url::{Standard, Url, has_scheme, resolve_with};
use proptest::prelude::*;

/// Strings rich in the characters that delimit URL components.
fn url_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-z:/?#;.%é ]{0,24}").unwrap()
}

fn standard() -> impl Strategy<Value = Standard> {
    prop_oneof![Just(Standard::Rfc1808), Just(Standard::Rfc3986)]
}

proptest! {
    #[test]
    fn a_reference_with_a_scheme_comes_back_unchanged_in_rfc1808(
        base in url_like(), scheme in "[a-zA-Z][a-zA-Z0-9+.-]{0,5}", rest in url_like()
    ) {
        let reference = format!("{scheme}:{rest}");
        prop_assert!(has_scheme(&reference));
        prop_assert_eq!(resolve_with(Standard::Rfc1808, &base, &reference), reference);
    }

    #[test]
    fn the_result_carries_the_base_scheme_or_the_reference_own(
        standard in standard(), scheme in "[a-z]{1,6}", base_rest in url_like(), reference in url_like()
    ) {
        let base = format!("{scheme}://{base_rest}");
        let result = resolve_with(standard, &base, &reference);
        let result_scheme = Url::parse(&result).scheme;
        let reference_scheme = Url::parse(&reference).scheme;
        prop_assert!(
            result_scheme == Some(scheme.as_str()) || (reference_scheme.is_some() && result_scheme == reference_scheme),
            "{} against {} gave {}", reference, base, result
        );
    }

    #[test]
    fn parse_and_recombine_return_the_input_when_no_component_is_empty(input in url_like()) {
        let url = Url::parse(&input);
        let has_empty_component = input.ends_with(['?', ';', '#'])
            || input.contains("?#") || input.contains(";?") || input.contains(";#");
        let trailing = input.split('#').next().unwrap_or_default();
        let empty_before_fragment = trailing.ends_with(['?', ';']) || {
            let before_query = trailing.split('?').next().unwrap_or_default();
            before_query.ends_with(';')
        };
        prop_assume!(!has_empty_component && !empty_before_fragment);
        prop_assert_eq!(url.to_string(), input);
    }

    #[test]
    fn an_empty_base_leaves_any_reference_unchanged(standard in standard(), reference in url_like()) {
        prop_assert_eq!(resolve_with(standard, "", &reference), reference);
    }

    #[test]
    fn resolving_never_panics_on_arbitrary_strings(standard in standard(), base in any::<String>(), reference in any::<String>()) {
        let _ = resolve_with(standard, &base, &reference);
    }

    /// With a base free of dot segments (RFC 3986 §5.2.1 expects one), the result is a
    /// fixed point: resolving it again gives it back.
    #[test]
    fn resolving_an_absolute_result_again_changes_nothing_in_rfc3986(
        base in "[a-z]{1,4}://[a-z]{1,4}(/[a-z]{1,3}){0,3}", reference in url_like()
    ) {
        let once = resolve_with(Standard::Rfc3986, &base, &reference);
        prop_assert_eq!(resolve_with(Standard::Rfc3986, &base, &once), once.clone());
    }
}
