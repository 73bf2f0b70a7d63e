# ruff: noqa: E501
"""The demo questions and their ground truth.

Each question has an id, the question as a user would type it, an optional reference answer,
topical tags, and `relevant`: the passages that answer it, as (document id, exact quote, grade).
Grade 2: the passage answers the question; grade 1: it helps partly. build_demo.py resolves each
quote to the chunk(s) that contain it and fails if a quote is missing or occurs more than once in
its document, so the ground truth survives re-chunking and edits to other parts of a document.

A question with an empty `relevant` list cannot be answered from the documents. Tags never say
so: they name the topic, plus the kind of question (multi-part, cross-document, near-miss,
paraphrase, typo, keyword-style, edge-case, frequent) where that helps a reader.
"""

QUESTIONS = [
    {
        "id": "q001",
        "question": "How many requests per minute can one API key send in production?",
        "answer": "100 requests per minute per API key. Requests beyond that get status 429 Too Many Requests with a Retry-After header.",
        "tags": ["api", "rate-limits", "frequent"],
        "relevant": [
            (
                "orders-api-rate-limits",
                "In production, each API key may send 100 requests per minute.",
                2,
            ),
        ],
    },
    {
        "id": "q002",
        "question": "How should a client retry after a 429 response?",
        "answer": "Wait for the number of seconds given in the Retry-After header, then retry the same request; never retry in a tight loop, because those retries count too. A client that cannot read headers should back off exponentially from one second up to 60 seconds, with jitter. The official SDKs do this automatically.",
        "tags": ["api", "rate-limits", "errors", "frequent"],
        "relevant": [
            (
                "orders-api-rate-limits",
                "wait for the number of seconds given in `Retry-After`, then retry the same request",
                2,
            ),
            ("orders-api-errors", "Retry `429`, `500` and `503` responses", 1),
            ("orders-api-sdks", "They honour `Retry-After` when the response has one", 1),
        ],
    },
    {
        "id": "q003",
        "question": "How do I authenticate to the Orders API?",
        "answer": "Send your secret API key as a bearer token in the Authorization header (Authorization: Bearer fl_live_...), over HTTPS. Platforms acting for several partner accounts can use OAuth 2.0 client credentials instead and send the access token the same way.",
        "tags": ["api", "auth", "frequent"],
        "relevant": [
            (
                "orders-api-authentication",
                "Send the key as a bearer token in the `Authorization` header",
                2,
            ),
            (
                "orders-api-authentication",
                "call `POST /oauth/token` with `grant_type=client_credentials`",
                1,
            ),
        ],
    },
    {
        "id": "q004",
        "question": "How long do I have to return an unopened item, and who pays the postage?",
        "answer": "Unopened items can be returned within 30 days of delivery. The customer pays the return postage, unless the item is faulty, was damaged in transit or is not what they ordered.",
        "tags": ["handbook", "returns", "postage", "multi-part"],
        "relevant": [
            (
                "handbook-returns-policy",
                "Customers can return unopened items within 30 days of delivery",
                2,
            ),
            (
                "handbook-return-postage",
                "The customer pays for return postage, unless the item is faulty",
                2,
            ),
        ],
    },
    {
        "id": "q005",
        "question": "How do I get the next page of results when listing orders?",
        "answer": "Repeat the request with cursor set to the next_cursor of the previous response, keeping the same filters, until has_more is false.",
        "tags": ["api", "pagination", "frequent"],
        "relevant": [
            ("orders-api-pagination", "To fetch the next page, repeat the request with", 2),
            ("orders-api-sdks", "`auto_paging_iter()` follows `next_cursor` for you", 1),
        ],
    },
    {
        "id": "q006",
        "question": "What does a 404 error from the API mean?",
        "answer": "The resource does not exist, or it belongs to another account; the API deliberately does not tell the two apart.",
        "tags": ["api", "errors"],
        "relevant": [
            (
                "orders-api-errors",
                "`404 Not Found`: the resource does not exist, or it belongs to another account.",
                2,
            ),
        ],
    },
    {
        "id": "q007",
        "question": "Can a customer return a frying pan they've already cooked with?",
        "answer": "Not unless it is faulty: items that show signs of use, such as cookware that has been heated, cannot be returned. Opened but unused items can be returned within 14 days.",
        "tags": ["handbook", "returns", "paraphrase", "edge-case"],
        "relevant": [
            (
                "handbook-returns-policy",
                "Items that show signs of use, such as cookware that has been heated",
                2,
            ),
        ],
    },
    {
        "id": "q008",
        "question": "How long does standard delivery take in the UK?",
        "answer": "3 to 5 working days. It costs £4.50 and is free on orders over £50.",
        "tags": ["handbook", "delivery", "frequent"],
        "relevant": [
            ("handbook-delivery", "Standard delivery takes 3 to 5 working days", 2),
        ],
    },
    {
        "id": "q009",
        "question": "Can gift cards be exchanged for cash?",
        "answer": "No. The only exception is an unused gift card cancelled within 14 days of purchase, which is refunded to the buyer in full.",
        "tags": ["handbook", "gift-cards", "frequent"],
        "relevant": [
            (
                "handbook-gift-cards",
                "Gift cards cannot be exchanged for cash, returned or refunded once sold",
                2,
            ),
        ],
    },
    {
        "id": "q010",
        "question": "Does the Orders API have a GraphQL endpoint?",
        "tags": ["api", "integration"],
        "relevant": [],
    },
    {
        "id": "q011",
        "question": "How do I verify that a webhook request really comes from Fernleaf?",
        "answer": "Compute an HMAC-SHA256 of the timestamp t, a full stop and the raw request body, keyed with the endpoint's whsec_ signing secret, and compare it in constant time with the v1 value of the Fernleaf-Signature header. Also reject deliveries whose timestamp is more than 5 minutes from your clock.",
        "tags": ["api", "webhooks", "security", "frequent"],
        "relevant": [
            (
                "orders-api-webhook-signatures",
                "Each delivery carries a `Fernleaf-Signature` header like this",
                2,
            ),
            ("orders-api-webhook-signatures", "Compute an HMAC with SHA-256", 2),
            (
                "orders-api-webhook-signatures",
                "Reject any delivery whose `t` is more than 5 minutes",
                1,
            ),
            ("orders-api-webhook-signatures", "The official SDKs verify signatures in one call", 1),
        ],
    },
    {
        "id": "q012",
        "question": "What happens if I retry POST /orders with the same Idempotency-Key?",
        "answer": "No second order is created: the API returns the saved response of the first request, with the header Idempotent-Replayed: true. Reusing the key with a different body returns 409 idempotency_conflict.",
        "tags": ["api", "idempotency", "orders"],
        "relevant": [
            ("orders-api-idempotency", "gets the saved response back", 2),
            (
                "orders-api-idempotency",
                "Reusing a key with a different request body, path or method returns `409`",
                1,
            ),
        ],
    },
    {
        "id": "q013",
        "question": "max page size list endpoints",
        "answer": "100 (the default is 25). Larger values are rejected with 400 parameter_out_of_range.",
        "tags": ["api", "pagination", "keyword-style"],
        "relevant": [
            ("orders-api-pagination", "The default is 25 and the maximum is 100", 2),
            (
                "orders-api-changelog",
                "The maximum page size for list endpoints rose from 50 to 100.",
                1,
            ),
        ],
    },
    {
        "id": "q014",
        "question": "Which scope does an API key need to create refunds?",
        "answer": "refunds:write, which also implies refunds:read.",
        "tags": ["api", "auth", "refunds"],
        "relevant": [
            ("orders-api-scopes", "`refunds:write`: create refunds.", 2),
            ("orders-api-refunds", "They need the `refunds:write` scope.", 2),
        ],
    },
    {
        "id": "q015",
        "question": "Can I cancel an order through the API after it has shipped?",
        "answer": "No. Orders can only be cancelled while pending or paid; from fulfilling onwards the call fails with 409 order_not_cancellable. The customer has to refuse the delivery or return the goods, and the order is refunded once they come back.",
        "tags": ["api", "orders"],
        "relevant": [
            (
                "orders-api-order-lifecycle",
                "From `fulfilling` onwards the call fails with `409 order_not_cancellable`",
                2,
            ),
            (
                "orders-api-error-codes",
                "`order_not_cancellable`: the order has moved past `paid`",
                1,
            ),
        ],
    },
    {
        "id": "q016",
        "question": "What is the rate limit in the sandbox?",
        "answer": "25 requests per minute per test key (raised from 10 in September 2024). Production keys get 100.",
        "tags": ["api", "sandbox", "rate-limits", "near-miss"],
        "relevant": [
            (
                "orders-api-sandbox",
                "Each test key may send 25 requests per minute, a quarter of the production limit.",
                2,
            ),
            (
                "orders-api-rate-limits",
                "Each test key may send 25 requests per minute, and bulk exports",
                2,
            ),
            (
                "orders-api-changelog",
                "The sandbox rate limit rose from 10 to 25 requests per minute per key.",
                1,
            ),
        ],
    },
    {
        "id": "q017",
        "question": "How many days of annual leave do full-time employees get?",
        "answer": "25 days a year plus the eight bank holidays in England; after two complete years of service, one extra day per further year, up to 30 days.",
        "tags": ["handbook", "leave", "frequent"],
        "relevant": [
            (
                "handbook-annual-leave",
                "Full-time employees receive 25 days of annual leave a year",
                2,
            ),
        ],
    },
    {
        "id": "q018",
        "question": "When do we get paid each month?",
        "answer": "On the last working day of each month, by bank transfer.",
        "tags": ["handbook", "pay"],
        "relevant": [
            (
                "handbook-pay-and-benefits",
                "Salaries are paid on the last working day of each month",
                2,
            ),
        ],
    },
    {
        "id": "q019",
        "question": "hotel cap london",
        "tags": ["handbook", "expenses", "travel", "keyword-style"],
        "relevant": [
            ("handbook-expenses", "£180 a night in London", 2),
        ],
    },
    {
        "id": "q020",
        "question": "I left my work laptop on the train. What do I do?",
        "answer": "Report it to the IT service desk (extension 4400) within one hour of noticing, day or night, so that it can be locked and wiped remotely. If it was stolen, report it to the police too and pass the crime reference number to the desk.",
        "tags": ["handbook", "security", "paraphrase"],
        "relevant": [
            (
                "handbook-information-security",
                "Report a lost or stolen laptop or phone to the IT service desk within one hour of noticing",
                2,
            ),
        ],
    },
    {
        "id": "q021",
        "question": "How fast do I have to acknowledge a P1 page when I'm on call?",
        "answer": "Within 15 minutes (a P2 within 30). An unacknowledged P1 goes to the secondary.",
        "tags": ["handbook", "on-call"],
        "relevant": [
            ("handbook-on-call", "Acknowledge a P1 page within 15 minutes", 2),
        ],
    },
    {
        "id": "q022",
        "question": "How much is the on-call allowance?",
        "answer": "£250 for a primary week and £100 for a secondary week, plus £40 for each call-out outside working hours.",
        "tags": ["handbook", "on-call", "pay"],
        "relevant": [
            ("handbook-on-call", "The on-call allowance is £250 for a primary week", 2),
        ],
    },
    {
        "id": "q023",
        "question": "Is there a limit on how fast Fernleaf sends webhooks to my endpoint?",
        "tags": ["api", "webhooks", "rate-limits", "near-miss"],
        "relevant": [],
    },
    {
        "id": "q024",
        "question": "Who pays the return postage when an item turns out to be faulty?",
        "answer": "Fernleaf does. If the customer already paid postage to send back a faulty item, it is refunded up to £10 on sight of a receipt.",
        "tags": ["handbook", "postage", "warranty"],
        "relevant": [
            (
                "handbook-return-postage",
                "The customer pays for return postage, unless the item is faulty",
                2,
            ),
            ("handbook-warranty", "Fernleaf pays the return postage.", 2),
            (
                "handbook-return-postage",
                "If a customer paid their own postage to send back a faulty or wrong item",
                1,
            ),
        ],
    },
    {
        "id": "q025",
        "question": "What's the biggest refund an agent can approve without a team lead?",
        "answer": "£150 per order. Team leads approve £150 to £500, and the Customer Care manager anything above £500.",
        "tags": ["handbook", "refunds", "escalation"],
        "relevant": [
            ("handbook-refunds", "up to £150 per order without further approval", 2),
            (
                "handbook-escalation",
                "Tier 2: team leads, who take cases above an agent's authority",
                1,
            ),
        ],
    },
    {
        "id": "q026",
        "question": "A customer says their Fernleaf kettle gave them an electric shock. What should I do?",
        "answer": "Tell the customer to stop using the kettle and unplug it, call the Product Safety on-call number (0117 496 0999) and escalate the case to Tier 3 straight away. Do not ask for the kettle back until Product Safety has decided.",
        "tags": ["handbook", "escalation", "warranty", "cross-document"],
        "relevant": [
            ("handbook-escalation", "Call the Product Safety on-call number", 2),
            ("handbook-warranty", "tell them to stop using it and unplug it", 2),
        ],
    },
    {
        "id": "q027",
        "question": "What is the retry schedule for failed webhook deliveries?",
        "answer": "Up to 8 more attempts over about 24 hours, after 1 minute, 5 minutes, 30 minutes, 1 hour, 2, 4, 6 and 10 hours. An endpoint that fails every delivery for 72 hours is disabled.",
        "tags": ["api", "webhooks"],
        "relevant": [
            ("orders-api-webhooks", "A failed delivery is retried up to 8 more times", 2),
            ("orders-api-changelog", "Webhook retries extended from 5 attempts over 6 hours", 1),
        ],
    },
    {
        "id": "q028",
        "question": "webhook timestamp tolerance replay",
        "tags": ["api", "webhooks", "security", "keyword-style"],
        "relevant": [
            (
                "orders-api-webhook-signatures",
                "more than 5 minutes (300 seconds) away from your server's clock",
                2,
            ),
            ("orders-api-webhook-signatures", "checks the signature and the 5-minute tolerance", 1),
        ],
    },
    {
        "id": "q029",
        "question": "how lnog does a refund take to apear on my card",
        "answer": "Card refunds take 5 to 10 working days to show on the statement after the refund is issued, depending on the bank. Refunds for returns are issued within 5 working days of the parcel arriving.",
        "tags": ["handbook", "refunds", "typo"],
        "relevant": [
            ("handbook-refunds", "Card refunds take 5 to 10 working days", 2),
            ("handbook-refunds", "Refunds for returned items are made within 5 working days", 1),
            (
                "orders-api-refunds",
                "Card refunds usually reach the customer's account within 5 to 10 working days",
                1,
            ),
        ],
    },
    {
        "id": "q030",
        "question": "Can I send back a gift voucher I got for my birthday?",
        "answer": "No. Gift cards cannot be returned, refunded or exchanged for cash once sold; only the buyer can cancel an unused card within 14 days of purchase.",
        "tags": ["handbook", "gift-cards", "returns", "paraphrase"],
        "relevant": [
            (
                "handbook-gift-cards",
                "Gift cards cannot be exchanged for cash, returned or refunded once sold",
                2,
            ),
            ("handbook-returns-policy", "- Gift cards (see the gift card section).", 1),
        ],
    },
    {
        "id": "q031",
        "question": "Can I bring my dog to the Bristol office?",
        "tags": ["handbook", "workplace"],
        "relevant": [],
    },
    {
        "id": "q032",
        "question": "How long is the guarantee on an electric kettle?",
        "answer": "Two years for Fernleaf's own-brand small electricals such as kettles. Other brands carry their maker's guarantee.",
        "tags": ["handbook", "warranty", "paraphrase"],
        "relevant": [
            (
                "handbook-warranty",
                "Small electricals, such as kettles, toasters and stand mixers: 2 years.",
                2,
            ),
        ],
    },
    {
        "id": "q033",
        "question": "How do I throttle my integration so it doesn't get blocked?",
        "tags": ["api", "rate-limits", "paraphrase"],
        "relevant": [
            ("orders-api-rate-limits", "Every response carries three headers", 2),
            (
                "orders-api-rate-limits",
                "wait for the number of seconds given in `Retry-After`, then retry the same request",
                2,
            ),
            (
                "orders-api-rate-limits",
                "In production, each API key may send 100 requests per minute.",
                1,
            ),
        ],
    },
    {
        "id": "q034",
        "question": "What's the deadline for submitting an expense claim?",
        "answer": "Within 60 days of the spending, in Spendwise. Older claims are refused unless the head of team approves an exception.",
        "tags": ["handbook", "expenses"],
        "relevant": [
            ("handbook-expenses", "within 60 days of the spending", 2),
        ],
    },
    {
        "id": "q035",
        "question": "Can I carry unused holiday over into next year?",
        "answer": "Up to five days, which must be taken by 31 March. Leave missed through sickness or family leave carries over in full.",
        "tags": ["handbook", "leave", "paraphrase"],
        "relevant": [
            (
                "handbook-annual-leave",
                "Up to five unused days can be carried into the next leave year.",
                2,
            ),
        ],
    },
    {
        "id": "q036",
        "question": "How long is maternity leave paid at full salary?",
        "answer": "After one year of service, the first 16 weeks are at full salary and the next 10 at half salary, then statutory pay. With less service, statutory pay applies throughout.",
        "tags": ["handbook", "leave", "pay"],
        "relevant": [
            ("handbook-parental-leave", "Fernleaf pays full salary for the first 16 weeks", 2),
        ],
    },
    {
        "id": "q037",
        "question": "mfa mandatory?",
        "tags": ["handbook", "security", "keyword-style"],
        "relevant": [
            ("handbook-information-security", "Multi-factor authentication is mandatory", 2),
        ],
    },
    {
        "id": "q038",
        "question": "What happens to an order that never gets paid?",
        "answer": "A pending order whose payment is not confirmed within 48 hours is cancelled automatically, with cancellation_reason payment_timeout.",
        "tags": ["api", "orders"],
        "relevant": [
            (
                "orders-api-order-lifecycle",
                "A `pending` order whose payment is not confirmed within 48 hours is cancelled automatically",
                2,
            ),
            ("orders-api-sandbox", "`98` waits in `pending` until the 48-hour timeout", 1),
        ],
    },
    {
        "id": "q039",
        "question": "If a customer returns the whole order, do they get the delivery charge back, and how do I refund that through the API?",
        "answer": "Yes, when the whole order is returned within 14 days of delivery. Through the API, refund the full order by leaving out amount or giving the full captured amount; a partial refund never includes delivery unless you add it yourself.",
        "tags": ["api", "handbook", "refunds", "cross-document", "multi-part"],
        "relevant": [
            (
                "handbook-refunds",
                "The original delivery charge is refunded when the customer returns the whole order within 14 days of delivery",
                2,
            ),
            (
                "orders-api-refunds",
                "Delivery charges are refunded only when you refund the full order",
                2,
            ),
        ],
    },
    {
        "id": "q040",
        "question": "What is the heaviest parcel that can go by Saturday delivery?",
        "tags": ["handbook", "delivery", "edge-case"],
        "relevant": [],
    },
    {
        "id": "q041",
        "question": "How long do Fernleaf Plus members have to return unopened items?",
        "answer": "60 days, instead of the usual 30.",
        "tags": ["handbook", "membership", "returns", "near-miss"],
        "relevant": [
            ("handbook-fernleaf-plus", "A 60-day returns window for unopened items", 2),
        ],
    },
    {
        "id": "q042",
        "question": "Can a customer return an item they opened but never used?",
        "answer": "Yes, within 14 days of delivery if it is unused and resaleable; the refund can be reduced by up to 20% for damaged packaging. Knives, opened food and personalised items are excluded.",
        "tags": ["handbook", "returns", "near-miss"],
        "relevant": [
            (
                "handbook-returns-policy",
                "Opened items that are not faulty can be returned within 14 days of delivery",
                2,
            ),
            (
                "handbook-returns-policy",
                "Knives and other blades, once the protective packaging is opened",
                1,
            ),
        ],
    },
    {
        "id": "q043",
        "question": "Within how long must a customer send photos of a parcel damaged in transit?",
        "answer": "Within 48 hours of delivery, showing the item and the outer packaging. Later reports still get help, but a team lead decides.",
        "tags": ["handbook", "delivery"],
        "relevant": [
            (
                "handbook-delivery-problems",
                "Ask for photos of the damaged item and of the outer packaging within 48 hours of delivery.",
                2,
            ),
        ],
    },
    {
        "id": "q044",
        "question": "When do we treat a parcel as lost?",
        "answer": "A standard parcel after 10 working days without a tracking update, an express parcel after 3. Then offer a free express replacement or a full refund and open a carrier claim.",
        "tags": ["handbook", "delivery", "frequent"],
        "relevant": [
            (
                "handbook-delivery-problems",
                "Treat a standard parcel as lost when its tracking has not changed for 10 working days",
                2,
            ),
        ],
    },
    {
        "id": "q045",
        "question": "rotate api key without downtime",
        "tags": ["api", "api-keys", "keyword-style"],
        "relevant": [
            ("orders-api-api-keys", "There are two ways to replace a key.", 2),
        ],
    },
    {
        "id": "q046",
        "question": "What does refund_exceeds_captured_amount mean?",
        "answer": "The refunds on the order would add up to more than was captured for it. The error says how much can still be refunded.",
        "tags": ["api", "errors", "refunds"],
        "relevant": [
            (
                "orders-api-error-codes",
                "`refund_exceeds_captured_amount`: the refunds on an order would add up to more than was paid for it.",
                2,
            ),
            ("orders-api-refunds", "fails with `422 refund_exceeds_captured_amount`", 2),
        ],
    },
    {
        "id": "q047",
        "question": "Is there a fee for replacing a lost gift card?",
        "tags": ["handbook", "gift-cards"],
        "relevant": [],
    },
    {
        "id": "q048",
        "question": "How many webhook endpoints can I register?",
        "answer": "Up to 16 per environment.",
        "tags": ["api", "webhooks"],
        "relevant": [
            ("orders-api-webhooks", "up to 16 endpoints per environment", 2),
        ],
    },
    {
        "id": "q049",
        "question": "Is there an official PHP SDK?",
        "answer": "No. The official SDKs are for Python, Node.js and Ruby. Community PHP libraries exist but are not supported; any HTTP client, or one generated from /v2/openapi.json, works.",
        "tags": ["api", "sdk"],
        "relevant": [
            ("orders-api-sdks", "There is no official SDK for PHP", 2),
            (
                "orders-api-sdks",
                "Fernleaf maintains client libraries for Python, Node.js and Ruby.",
                1,
            ),
        ],
    },
    {
        "id": "q050",
        "question": "When will v1 of the API be switched off?",
        "answer": "On 30 June 2025. After that, every request to /v1 returns 410 Gone.",
        "tags": ["api", "versioning"],
        "relevant": [
            ("orders-api-versioning", "will be switched off on 30 June 2025", 2),
            (
                "orders-api-changelog",
                "Version 1 deprecated, with a switch-off date of 30 June 2025.",
                1,
            ),
            (
                "orders-api-migrating-from-v1",
                "Version 1 of the Orders API will be switched off on 30 June 2025.",
                1,
            ),
        ],
    },
    {
        "id": "q051",
        "question": "How can I simulate a declined card payment in the sandbox?",
        "answer": "Create an order whose total ends in 97, for example £24.97 (2497).",
        "tags": ["api", "sandbox", "orders"],
        "relevant": [
            ("orders-api-sandbox", "`97` is declined", 2),
        ],
    },
    {
        "id": "q052",
        "question": "How long are export files kept before they are deleted?",
        "answer": "7 days in production and 24 hours in the sandbox. The signed download URL itself is valid for one hour.",
        "tags": ["api", "exports"],
        "relevant": [
            (
                "orders-api-bulk-exports",
                "Files are kept for 7 days in production and 24 hours in the sandbox",
                2,
            ),
            ("orders-api-sandbox", "export files are kept for 24 hours rather than 7 days", 1),
        ],
    },
    {
        "id": "q053",
        "question": "Can I change a customer's email address through the API?",
        "answer": "No, because the email address identifies the customer across channels. Customer care can change it after checking the customer's identity.",
        "tags": ["api", "customers"],
        "relevant": [
            ("orders-api-customers", "The email address cannot be changed through the API", 2),
        ],
    },
    {
        "id": "q054",
        "question": "How do I fetch only the orders that changed since my last sync?",
        "answer": "Filter GET /orders on updated_at[gt] with the timestamp of the newest order you saw.",
        "tags": ["api", "orders", "pagination"],
        "relevant": [
            ("orders-api-filtering-and-sorting", "filter on `updated_at[gt]`", 2),
        ],
    },
    {
        "id": "q055",
        "question": "How do I set up SAML single sign-on for the Partner Dashboard?",
        "tags": ["api", "auth"],
        "relevant": [],
    },
    {
        "id": "q056",
        "question": "Our webhook signature check keeps failing even though the secret is right. What could be wrong?",
        "answer": "Usually the body was parsed and re-serialised before hashing instead of using the raw body, or the server clock has drifted so the timestamp falls outside the 5-minute tolerance. Also check that production uses the live endpoint's secret, not the sandbox one.",
        "tags": ["api", "webhooks", "edge-case"],
        "relevant": [
            ("orders-api-webhook-signatures", "Take the raw request body exactly as received", 2),
            ("orders-api-webhook-signatures", "a drifting clock is the most common cause", 2),
            (
                "orders-api-sandbox",
                "verifies signatures with the live endpoint's secret, which differs from the sandbox one",
                1,
            ),
        ],
    },
    {
        "id": "q057",
        "question": "What is the mileage rate if I drive my own car for work?",
        "answer": "45p a mile for the first 10,000 business miles in a tax year, then 25p.",
        "tags": ["handbook", "expenses", "travel"],
        "relevant": [
            ("handbook-expenses", "mileage is paid at 45p per mile", 2),
        ],
    },
    {
        "id": "q058",
        "question": "How many days a week do hybrid staff have to be in the office?",
        "answer": "At least two, one of them the team's anchor day.",
        "tags": ["handbook", "remote-work"],
        "relevant": [
            ("handbook-working-from-home", "at least two days a week in the Bristol office", 2),
        ],
    },
    {
        "id": "q059",
        "question": "A customer pasted their full card number into the chat. What should I do?",
        "answer": "Do not copy it anywhere; use the Redact action to remove it from the record, and explain that Fernleaf will never ask for it.",
        "tags": ["handbook", "security", "customer-contact"],
        "relevant": [
            ("handbook-information-security", "use the **Redact** action", 2),
        ],
    },
    {
        "id": "q060",
        "question": "How quickly do I need to pass a customer's request for their data to the privacy team?",
        "answer": "Within one working day. Fernleaf has to answer within one calendar month of receiving the request.",
        "tags": ["handbook", "privacy", "paraphrase"],
        "relevant": [
            (
                "handbook-data-protection",
                "Forward every request to privacy@fernleaf.example within one working day",
                2,
            ),
            ("handbook-data-protection", "Fernleaf must answer within one calendar month", 1),
        ],
    },
    {
        "id": "q061",
        "question": "A parcel came back to the warehouse as returned to sender. Is the order refunded automatically?",
        "answer": "No. The warehouse checks the parcel first, then customer care contacts the customer to arrange a refund or redelivery.",
        "tags": ["api", "handbook", "shipping", "refunds", "cross-document"],
        "relevant": [
            ("orders-api-shipments", "The order is not refunded automatically", 2),
            (
                "handbook-delivery-problems",
                "the customer is refunded minus the original delivery charge",
                1,
            ),
        ],
    },
    {
        "id": "q062",
        "question": "What is the dress code at head office?",
        "tags": ["handbook", "workplace", "frequent"],
        "relevant": [],
    },
    {
        "id": "q063",
        "question": "How much does express delivery cost, and what's the cut-off time?",
        "answer": "£7.95, arriving the next working day for orders placed before 14:00, Monday to Friday.",
        "tags": ["handbook", "delivery", "multi-part"],
        "relevant": [
            ("handbook-delivery", "Express delivery costs £7.95", 2),
        ],
    },
    {
        "id": "q064",
        "question": "Can a customer use several gift cards on one order?",
        "answer": "Yes, up to five.",
        "tags": ["handbook", "gift-cards"],
        "relevant": [
            ("handbook-gift-cards", "up to five gift cards can be combined in one order", 2),
        ],
    },
    {
        "id": "q065",
        "question": "What's the warranty on cast iron pans?",
        "answer": "Fernleaf's own cast iron has a lifetime guarantee against cracking and warping.",
        "tags": ["handbook", "warranty"],
        "relevant": [
            (
                "handbook-warranty",
                "Cast iron cookware: a lifetime guarantee against cracking and warping.",
                2,
            ),
            ("handbook-warranty", "Cast iron claims need a photo of the crack", 1),
        ],
    },
    {
        "id": "q066",
        "question": "How long do we keep call recordings?",
        "answer": "90 days, unless they are attached to a complaint.",
        "tags": ["handbook", "privacy", "customer-contact"],
        "relevant": [
            ("handbook-data-protection", "Call recordings: 90 days", 2),
        ],
    },
    {
        "id": "q067",
        "question": "When is the postmortem due after a P1 incident?",
        "answer": "Within 5 working days of the incident ending.",
        "tags": ["handbook", "incidents"],
        "relevant": [
            (
                "handbook-incident-management",
                "shared within 5 working days of the incident ending",
                2,
            ),
        ],
    },
    {
        "id": "q068",
        "question": "How much notice do I have to give when I resign after passing probation?",
        "tags": ["handbook", "onboarding", "near-miss"],
        "relevant": [],
    },
    {
        "id": "q069",
        "question": "oauth access token expiry",
        "tags": ["api", "auth", "keyword-style"],
        "relevant": [
            ("orders-api-authentication", "Access tokens are valid for 60 minutes.", 2),
            ("orders-api-authentication", "An expired token returns `401` with `token_expired`", 1),
        ],
    },
    {
        "id": "q070",
        "question": "Does the API escape HTML in customer notes?",
        "answer": "No. Notes are returned exactly as the customer typed them, so escape them for the medium you display them in and never render them as Markdown.",
        "tags": ["api", "orders", "security"],
        "relevant": [
            (
                "orders-api-rendering-customer-messages",
                "The API neither escapes nor strips markup",
                2,
            ),
            (
                "orders-api-rendering-customer-messages",
                "Always escape notes for the medium you display them in",
                2,
            ),
            (
                "orders-api-rendering-customer-messages",
                "leave the parcel with the neighbour at number 12.",
                1,
            ),
        ],
    },
    {
        "id": "q071",
        "question": "What time does the phone line open on Saturdays?",
        "answer": "At 09:00; it closes at 13:00.",
        "tags": ["handbook", "customer-contact"],
        "relevant": [
            ("handbook-contact-channels", "Saturday 09:00 to 13:00", 2),
        ],
    },
    {
        "id": "q072",
        "question": "Can a customer get their money back for a Fernleaf Plus membership?",
        "answer": "Within 14 days of joining, in full if no Plus benefit was used (reduced by the benefits used otherwise). After that an annual membership is not refunded but stays active until the end of the year paid for.",
        "tags": ["handbook", "membership", "refunds"],
        "relevant": [
            (
                "handbook-fernleaf-plus",
                "A new membership can be cancelled within 14 days for a full refund",
                2,
            ),
        ],
    },
    {
        "id": "q073",
        "question": "An order paid with a gift card gets returned. How is it refunded?",
        "answer": "The gift card part goes back to a gift card, never as cash. If the original gift card has expired, a new one is issued for the amount, valid for 12 months.",
        "tags": ["handbook", "gift-cards", "refunds", "cross-document"],
        "relevant": [
            (
                "handbook-refunds",
                "Orders paid fully or partly with a gift card are refunded to a gift card",
                2,
            ),
            (
                "handbook-gift-cards",
                "When an item bought with a gift card is returned, the refund goes back to a gift card",
                2,
            ),
        ],
    },
    {
        "id": "q074",
        "question": "Does the Python SDK support asyncio?",
        "tags": ["api", "sdk"],
        "relevant": [],
    },
    {
        "id": "q075",
        "question": "Does Fernleaf deliver to the United States?",
        "answer": "No. Fernleaf delivers only to the UK, Ireland and the EU.",
        "tags": ["handbook", "delivery", "near-miss"],
        "relevant": [
            (
                "handbook-delivery",
                "Fernleaf does not deliver outside the UK, Ireland and the EU.",
                2,
            ),
            (
                "orders-api-creating-orders",
                "Fernleaf ships to the United Kingdom, Ireland and the countries of the European Union.",
                1,
            ),
        ],
    },
    {
        "id": "q076",
        "question": "How do I open a return through the API, and is the refund issued automatically?",
        "answer": "Call POST /orders/{order_id}/returns with the line items and a reason; the response holds the RMA number. The refund is not automatic: after return.inspected, create it with POST /orders/{order_id}/refunds and include return_id.",
        "tags": ["api", "returns", "refunds", "multi-part"],
        "relevant": [
            ("orders-api-returns", "`POST /orders/{order_id}/returns` with the line items", 2),
            (
                "orders-api-returns",
                "Refunds are not created automatically for returns opened through the API",
                2,
            ),
        ],
    },
    {
        "id": "q077",
        "question": "What replaced the X-Fernleaf-Hmac header in v2?",
        "answer": "The Fernleaf-Signature header, which adds a timestamp and uses HMAC-SHA256 with new whsec_ secrets.",
        "tags": ["api", "webhooks", "versioning"],
        "relevant": [
            (
                "orders-api-migrating-from-v1",
                "v1 signed webhooks with an `X-Fernleaf-Hmac` header",
                2,
            ),
            (
                "orders-api-webhook-signatures",
                "Each delivery carries a `Fernleaf-Signature` header like this",
                1,
            ),
        ],
    },
    {
        "id": "q078",
        "question": "What are the showroom's opening hours on Sunday?",
        "answer": "11:00 to 16:00.",
        "tags": ["handbook", "showroom", "near-miss"],
        "relevant": [
            ("handbook-showroom", "Sunday from 11:00 to 16:00", 2),
        ],
    },
    {
        "id": "q079",
        "question": "How do I get rust off a cast iron skillet?",
        "answer": "Scrub the rust off, dry the pan on the hob, wipe it with a few drops of oil and heat it for ten minutes. Never put cast iron in the dishwasher.",
        "tags": ["handbook", "product-care", "paraphrase"],
        "relevant": [
            ("handbook-product-care", "Rust spots mean the pan was left wet", 2),
        ],
    },
    {
        "id": "q080",
        "question": "How long is the probation period?",
        "answer": "Six months, which can be extended once by up to three months.",
        "tags": ["handbook", "onboarding"],
        "relevant": [
            ("handbook-probation-and-onboarding", "Probation lasts six months.", 2),
        ],
    },
    {
        "id": "q081",
        "question": "How many loyalty points do customers earn per pound spent?",
        "tags": ["handbook", "membership"],
        "relevant": [],
    },
    {
        "id": "q082",
        "question": "What discount do trade customers get?",
        "answer": "15% off catalogue prices, or 20% on orders over £2,000 before VAT.",
        "tags": ["handbook", "trade", "near-miss"],
        "relevant": [
            ("handbook-trade-accounts", "Trade customers get 15% off catalogue prices", 2),
        ],
    },
    {
        "id": "q083",
        "question": "A customer paid cash in the showroom and now returns the item. Do they get cash back?",
        "answer": "Yes, for amounts up to £200; larger amounts are refunded by bank transfer.",
        "tags": ["handbook", "showroom", "returns", "refunds"],
        "relevant": [
            (
                "handbook-showroom",
                "purchases paid in cash are refunded in cash for amounts up to £200",
                2,
            ),
            ("handbook-refunds", "Refunds always go to the original payment method.", 1),
        ],
    },
    {
        "id": "q084",
        "question": "X-RateLimit-Reset format",
        "tags": ["api", "rate-limits", "keyword-style"],
        "relevant": [
            (
                "orders-api-rate-limits",
                "`X-RateLimit-Reset`: when the oldest request in the window expires",
                2,
            ),
        ],
    },
    {
        "id": "q085",
        "question": "Does searching orders count differently against the rate limit?",
        "answer": "Yes. GET /orders/search costs five requests, so a production key can make 20 searches a minute; POST /exports costs ten.",
        "tags": ["api", "rate-limits", "orders", "edge-case"],
        "relevant": [
            ("orders-api-rate-limits", "`GET /orders/search` costs five", 2),
            (
                "orders-api-filtering-and-sorting",
                "each call costs five requests against the rate limit",
                1,
            ),
        ],
    },
    {
        "id": "q086",
        "question": "Is there a bonus for referring a friend who gets hired?",
        "tags": ["handbook", "pay", "edge-case"],
        "relevant": [],
    },
    {
        "id": "q087",
        "question": "whats the sick pay",
        "tags": ["handbook", "leave", "pay", "typo"],
        "relevant": [
            ("handbook-sick-leave", "Fernleaf pays full salary for up to 10 working days", 2),
            (
                "handbook-probation-and-onboarding",
                "Some benefits start only after probation: company sick pay",
                1,
            ),
        ],
    },
    {
        "id": "q088",
        "question": "Where can a customer go if they are still unhappy after a formal complaint?",
        "answer": "To the Retail Dispute Service, an independent body whose decisions Fernleaf has agreed to follow.",
        "tags": ["handbook", "escalation"],
        "relevant": [
            ("handbook-escalation", "they can take the matter to the Retail Dispute Service", 2),
        ],
    },
]
