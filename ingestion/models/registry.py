"""The registry: suites, tasks, people, harnesses (and who owns them), and models.

Every length a bundle value meets here comes from the one table in
ingestion/bundles/limits.py, which the validators read too.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from ingestion.bundles import limits
from ingestion.natural_order import natural_order


class Person(models.Model):
    """A task author and/or a harness contributor, known by a handle (`mira.chen`)."""

    handle = models.CharField(max_length=limits.HANDLE_LENGTH, unique=True)
    display_name = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["handle"]
        verbose_name_plural = "people"

    def __str__(self) -> str:
        return self.handle


class Suite(models.Model):
    slug = models.SlugField(max_length=100)
    version = models.CharField(max_length=50)
    name = models.CharField(max_length=200)
    official = models.BooleanField(default=False)
    # An official suite always has its own board; these say which aggregate boards
    # its tasks also join (Overall; Coding for its tasks of coding categories).
    in_overall = models.BooleanField(default=True, help_text="Its tasks count on Overall")
    in_coding = models.BooleanField(
        default=True, help_text="Its tasks of coding categories count on Coding"
    )
    execution = models.TextField(blank=True, help_text="Execution profile")
    scoring = models.TextField(blank=True)
    limitations = models.TextField(blank=True)
    # The configuration its runs are compared with (the registry's standard_run_config,
    # as ingestion.bundles.run_config stores it); {}: none stated, nothing compared.
    standard_run_config = models.JSONField(default=dict, blank=True)
    # How its runs' traces are read against reference calls (write tools, ignored tools,
    # how each argument is compared) and the written rules every trace is checked
    # against: the registry's `trajectory` and `rules`, parsed by ingestion.traces.
    trajectory = models.JSONField(default=dict, blank=True)
    rules = models.JSONField(default=list, blank=True)
    # How its board fits time horizons: "headline" or "cross_domain"
    # (leaderboard.methodology.time_horizon); aggregate boards always use headline.
    horizon_mode = models.CharField(
        max_length=limits.HORIZON_MODE_LENGTH,
        choices=[(mode, mode) for mode in limits.HORIZON_MODES],
        default=limits.HORIZON_MODES[0],
        db_default=limits.HORIZON_MODES[0],
    )

    class Meta:
        ordering = ["slug", "version"]
        constraints = [
            models.UniqueConstraint(fields=["slug", "version"], name="suite_slug_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"

    @property
    def board_slug(self) -> str:
        return f"{self.slug}-{self.version}"


class Category(models.Model):
    """A task category; `coding` puts its tasks on the Coding board."""

    name = models.SlugField(max_length=100, unique=True)
    coding = models.BooleanField(default=False)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class TaskQuerySet(models.QuerySet):
    def approved_official(self) -> TaskQuerySet:
        return self.filter(approved=True, suite__official=True)

    def approved_lookup(self) -> dict[tuple[str, str, str], int]:
        """(suite slug, suite version, task id) -> primary key, for approved tasks."""
        rows = self.filter(approved=True).values_list(
            "suite__slug", "suite__version", "task_id", "pk"
        )
        return {(slug, version, task_id): pk for slug, version, task_id, pk in rows}


class Task(models.Model):
    suite = models.ForeignKey(Suite, on_delete=models.PROTECT, related_name="tasks")
    task_id = models.CharField(max_length=200)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="tasks")
    approved = models.BooleanField(default=True)
    # When the task was published: runs of a model whose knowledge cutoff precedes it
    # are the boards' "after cutoff" (uncontaminated) view.
    published_on = models.DateField(null=True, blank=True)
    # The calls a correct run makes ({tool, arguments, write}); None: no reference, its
    # runs get no trajectory figures (an empty list is a reference: no calls expected).
    reference_calls = models.JSONField(null=True, blank=True)
    # How long the task takes a skilled human, in minutes; None: no length, the task
    # counts for no time horizon. family: its group for the horizon's weights and
    # bootstrap; blank means its category's name.
    human_minutes = models.FloatField(null=True, blank=True)
    family = models.CharField(max_length=limits.FAMILY_LENGTH, blank=True, db_default="")
    authors = models.ManyToManyField(Person, blank=True, related_name="authored_tasks")

    objects = TaskQuerySet.as_manager()

    class Meta:
        # Task ids in natural order (0, 1, 2, 10; "task-2" before "task-10").
        ordering = ["suite", *natural_order("task_id")]
        constraints = [
            models.UniqueConstraint(fields=["suite", "task_id"], name="task_suite_task_id_unique")
        ]

    def __str__(self) -> str:
        return f"{self.suite.slug} {self.suite.version}/{self.task_id}"


class HarnessQuerySet(models.QuerySet):
    def maintained(self) -> HarnessQuerySet:
        """The maintainers' rows: one per (name, version), never an independent run."""
        return self.filter(independent_by__isnull=True)


class Harness(models.Model):
    """An agent framework at one version; `minimal_baseline` marks the Minimal harness.

    The maintainers' row of a (name, version) has no `independent_by`. Runs of it that
    another account uploads go to a row of their own, `independent_by` that account
    (an independent reproduction: its own board entry, never pooled with the
    maintainers'). Such a row keeps no contributors of its own: the conflict rule reads
    the maintainers' row of the same name and version (the harness code is the same).
    """

    name = models.CharField(max_length=limits.HARNESS_NAME_LENGTH)
    version = models.CharField(max_length=limits.HARNESS_VERSION_LENGTH)
    contributors = models.ManyToManyField(Person, blank=True, related_name="harnesses")
    minimal_baseline = models.BooleanField(default=False)
    url = models.URLField(max_length=limits.HARNESS_URL_LENGTH, blank=True)
    independent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="independent_harnesses",
        help_text="set on an independent run: the account that uploaded it",
    )
    # Who makes it, and whether its code is open source (None: not known).
    organisation = models.CharField(max_length=100, blank=True, db_default="")
    open_source = models.BooleanField(null=True, blank=True)

    objects = HarnessQuerySet.as_manager()

    class Meta:
        ordering = ["name", "version", "id"]
        verbose_name_plural = "harnesses"
        constraints = [
            models.UniqueConstraint(
                fields=["name", "version"],
                condition=Q(independent_by__isnull=True),
                name="harness_name_version_unique",
            ),
            models.UniqueConstraint(
                fields=["name", "version", "independent_by"],
                condition=Q(independent_by__isnull=False),
                name="harness_independent_unique",
            ),
        ]

    def __str__(self) -> str:
        if self.independent_by_id is None:
            return f"{self.name} {self.version}"
        # Lists select_related("harness__independent_by") to name the account for free.
        return f"{self.name} {self.version} (independent run by {self.independent_by.username})"

    @property
    def is_independent(self) -> bool:
        return self.independent_by_id is not None

    def original(self) -> Harness | None:
        """The maintainers' row of this name and version (itself when not independent)."""
        if self.independent_by_id is None:
            return self
        return Harness.objects.maintained().filter(name=self.name, version=self.version).first()


class HarnessOwner(models.Model):
    """Who a harness name belongs to: the account that first published it, and the
    accounts it names as maintainers. Only they change the metadata of its versions
    (contributors, URL, Minimal flag); anyone else's runs are independent runs."""

    name = models.CharField(max_length=limits.HARNESS_NAME_LENGTH, unique=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_harnesses"
    )
    maintainers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="maintained_harnesses"
    )
    claimed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "harness ownership"
        verbose_name_plural = "harness ownership"

    def __str__(self) -> str:
        return f"{self.name} (owner {self.owner})"

    def is_maintainer(self, user) -> bool:
        """The owner, or an account the owner's bundles named as a maintainer."""
        if user.pk == self.owner_id:
            return True
        return self.maintainers.filter(pk=user.pk).exists()


class LanguageModel(models.Model):
    """The model an agent drives (`frontier-large`); provider and prices are optional."""

    name = models.CharField(max_length=limits.MODEL_NAME_LENGTH, unique=True)
    provider = models.CharField(max_length=100, blank=True)
    # Other spellings of this model that files use ("anthropic/claude-opus-4-6"): runs
    # and sessions naming one are stored under this model.
    aliases = ArrayField(
        models.CharField(max_length=limits.MODEL_NAME_LENGTH), default=list, blank=True
    )
    # Listed: in the registry. A name no registry model or alias knows is stored as an
    # unlisted model, which a moderator can merge into a listed one.
    listed = models.BooleanField(default=False)
    # Who made the model (provider is who serves it); None: not known.
    organisation = models.CharField(max_length=100, blank=True, db_default="")
    open_weights = models.BooleanField(null=True, blank=True)
    release_date = models.DateField(null=True, blank=True)
    knowledge_cutoff = models.DateField(null=True, blank=True)
    input_price_per_mtok = models.DecimalField(
        max_digits=10, decimal_places=4, null=True, blank=True
    )
    output_price_per_mtok = models.DecimalField(
        max_digits=10, decimal_places=4, null=True, blank=True
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "model"
        # Moderators merge models without being able to edit them (prices, names,
        # aliases and `listed` are the registry's, or a superuser's).
        permissions = [("merge_languagemodel", "Can merge an unlisted model into a listed one")]

    def __str__(self) -> str:
        return self.name


def _price() -> models.DecimalField:
    return models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)


class ModelPrice(models.Model):
    """One period of a model's list price, in force from `effective_from` (a UTC date)
    until the model's next period: the boards price a run's tokens with the period in
    force on the run's date (docs/decisions.md "One price list")."""

    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="prices")
    effective_from = models.DateField()
    input_price_per_mtok = _price()
    output_price_per_mtok = _price()
    # Cached input tokens at this price; none stated means the input price.
    cached_input_price_per_mtok = _price()

    class Meta:
        ordering = ["model", "effective_from"]
        verbose_name = "model price"
        constraints = [
            models.UniqueConstraint(
                fields=["model", "effective_from"], name="modelprice_period_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.model} from {self.effective_from}"


class Verifier(models.Model):
    """An independent scorer whose Ed25519 signature over a bundle's results files makes
    a submission Verified. Registered by admins; deactivating one turns its submissions
    Self-reported at the next recompute."""

    name = models.CharField(max_length=limits.VERIFIER_NAME_LENGTH, unique=True)
    # The raw 32-byte Ed25519 public key, base64 (what `manage.py sign_bundle` prints).
    public_key = models.CharField(max_length=60, unique=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name if self.active else f"{self.name} (inactive)"
