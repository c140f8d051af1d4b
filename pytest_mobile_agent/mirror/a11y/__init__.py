"""Accessibility audits of the replica (issue 39): the rules of Google's Accessibility Test
Framework for Android (ATF, google/Accessibility-Test-Framework-for-Android) run from the host on
any app's tree and screenshot.

    findings = screen.audit_accessibility()                # every rule, every window
    findings = screen.audit_accessibility(within=form, rules=["touch_target_size"])

`findings` (the `Finding` value and its severities), `contrast` (ATF's ContrastSwatch and the
WCAG ratio on a screenshot's pixels), `speakable` (what a screen reader says for a node), `rules`
(one function per ATF check), `catalog` (the rules by name, a misspelt name's did-you-mean) and
`audit` (a view and a screenshot in, findings out). The mirror calls `audit`; the plugin's per-step
audit (`--android-a11y`) lives in the plugin's own module.
"""
