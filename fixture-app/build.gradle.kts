// Versions pinned here, so that every build of the fixture app is the same app. AGP 8.10 is the first
// that knows compileSdk 36; it needs Gradle 8.11.1 or newer (.github/workflows/device-tests.yml pins
// the Gradle it runs with).
plugins {
    id("com.android.application") version "8.10.1" apply false
    id("org.jetbrains.kotlin.android") version "2.1.21" apply false
    id("org.jetbrains.kotlin.plugin.compose") version "2.1.21" apply false
}
