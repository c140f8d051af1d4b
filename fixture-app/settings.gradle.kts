// The Compose fixture app as a real Android project: the app the examples, tests/device and the
// doctor's text checks drive on a device (README, "The fixture app"). The virtual device carries its
// double (pytest_mobile_agent/virtual/ui/fixture.py); tests/unit/test_fixture_app.py checks that
// both have every id and text of README's table.
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
}

dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}

rootProject.name = "mobile-agent-fixture"
include(":app")
