/* Real answers of the internal application, written by scripts/capture-internal-examples.mjs: do not edit by hand. */
export const INTERNAL_EXAMPLES = {
  "answers": {
    "createWorkspace": {
      "data": {
        "id": "ws_rsKKoAGpxJo0g8i8",
        "name": "Acme Recruiting",
        "verified": false,
        "freeAllowance": 0
      }
    },
    "verifyWorkspace": {
      "data": {
        "id": "ws_rsKKoAGpxJo0g8i8",
        "name": "Acme Recruiting",
        "verified": true,
        "freeAllowance": 0
      }
    },
    "regenerateApiKey": {
      "data": {
        "id": "key_r7U8clxGHE6bRVNo",
        "key": "live_76ykpphwpdo6nruxghvrkg6s",
        "secret": "dMnIEJ_ua4dgDtBUbDEWmUgTLARCpxbjgCdn6qbodHQ",
        "mode": "live"
      }
    },
    "issueApiKey": {
      "data": {
        "id": "key_mSDdKoVRTEvfjOWl",
        "key": "SBX_3c2ais6rdpbkl3xcxr4m4mlq",
        "secret": "26ib0LJP3R1-1TpFsGL4uRA-vRaPa5joNjn9_POa1nk",
        "mode": "sandbox"
      }
    },
    "saveWebhook": {
      "data": {
        "url": "https://hooks.example.com/hiring",
        "events": [
          "candidateCreated",
          "assessmentStarted",
          "testCompleted",
          "assessmentCompleted",
          "resultUnlocked"
        ],
        "secret": "whsec_jsS5L1SdhJeDYjcR7PINbwGBsnnZJ9WrUE3dhbx00tk",
        "enabled": true,
        "disabledReason": null
      }
    },
    "rotateWebhookSecret": {
      "data": {
        "url": "https://hooks.example.com/hiring",
        "events": [
          "candidateCreated",
          "assessmentStarted",
          "testCompleted",
          "assessmentCompleted",
          "resultUnlocked"
        ],
        "secret": "whsec_APC_kxnPtcGaPSlwfZNz9ENetofZFpXbJCSAeTmyhCs"
      }
    },
    "getWebhook": {
      "data": {
        "url": "https://hooks.example.com/hiring",
        "events": [
          "candidateCreated",
          "assessmentStarted",
          "testCompleted",
          "assessmentCompleted",
          "resultUnlocked"
        ],
        "secret": "whsec_APC_kxnPtcGaPSlwfZNz9ENetofZFpXbJCSAeTmyhCs",
        "enabled": true,
        "disabledReason": null
      }
    },
    "createCustomTest": {
      "data": {
        "slug": "custom-krgbmuin",
        "name": "Support desk scenarios",
        "type": "custom"
      }
    },
    "addTestToAssessment": {
      "data": {
        "id": "asm_X9KYjKSaUHjYBsVo",
        "name": "Customer support, spring intake",
        "status": "active",
        "createdAt": "2026-11-28T22:41:54.791Z",
        "deadline": null,
        "tests": [
          {
            "slug": "numerical-reasoning",
            "name": "Numerical Reasoning",
            "type": "library"
          },
          {
            "slug": "verbal-reasoning",
            "name": "Verbal Reasoning",
            "type": "library"
          },
          {
            "slug": "custom-krgbmuin",
            "name": "Support desk scenarios",
            "type": "custom"
          }
        ],
        "candidateCount": 0,
        "inviteUrl": "https://app.example.com/join/asm_X9KYjKSaUHjYBsVo/R1A5cPEM7-GSNUcpAU0H9LbAoafM9IB_"
      }
    },
    "registerCandidate": {
      "data": {
        "candidateId": "cand_AFamwtO9f7HJTWZZ",
        "assessmentId": "asm_X9KYjKSaUHjYBsVo"
      }
    },
    "registerCandidateAgain": {
      "data": {
        "candidateId": "cand_AFamwtO9f7HJTWZZ",
        "assessmentId": "asm_X9KYjKSaUHjYBsVo"
      }
    },
    "startAssessment": {
      "data": {
        "candidateId": "cand_AFamwtO9f7HJTWZZ",
        "assessmentId": "asm_X9KYjKSaUHjYBsVo",
        "status": "in_progress"
      }
    },
    "completeTest": {
      "data": {
        "resultId": "res_r3qR45zzA78C2Ow1",
        "assessmentCompleted": false
      }
    },
    "completeLastTest": {
      "data": {
        "resultId": "res_6eCjIbZUpSPgYmiE",
        "assessmentCompleted": true
      }
    },
    "unlockResult": {
      "data": {
        "resultId": "res_r3qR45zzA78C2Ow1",
        "unlockedAt": "2026-11-28T22:41:55.773Z",
        "charged": true
      }
    },
    "getBilling": {
      "data": {
        "freeAllowance": 0,
        "billedCandidates": [
          {
            "resultId": "res_r3qR45zzA78C2Ow1",
            "chargedAt": "2026-11-28T22:41:55.773Z",
            "candidateId": "cand_AFamwtO9f7HJTWZZ"
          }
        ]
      }
    },
    "listEmails": {
      "data": [
        {
          "id": "eml_841cf7ffa622abd60c44290370fcdc6e",
          "to": "ann.lee@example.com",
          "subject": "You are invited to take the assessment \"Customer support, spring intake\"",
          "text": "Hello Ann,\n\nYou have been invited to take the assessment \"Customer support, spring intake\".\n\nStart here:\nhttps://app.example.com/invitations/asm_X9KYjKSaUHjYBsVo/-n4oU2EA5MpGRNXT4j89hOJDEpEdHlPA\n\nThis link is personal: please do not share it.",
          "sentAt": "2026-11-28T22:41:54.987Z"
        }
      ]
    },
    "listWebhookDeliveries": {
      "data": [
        {
          "id": "whd_450987c9e42f88c961e4bb1fc178cd3b",
          "eventId": "0bcb9964-d00e-400f-8257-8052479627a5",
          "event": "resultUnlocked",
          "url": "https://hooks.example.com/hiring",
          "status": "succeeded",
          "attempts": 2,
          "attemptLog": [
            {
              "at": "2026-11-28T22:41:55.933Z",
              "responseStatus": 503,
              "durationMs": 8,
              "error": "http_503"
            },
            {
              "at": "2026-11-28T22:41:56.152Z",
              "responseStatus": 204,
              "durationMs": 1,
              "error": null
            }
          ],
          "lastResponseStatus": 204,
          "lastError": null,
          "createdAt": "2026-11-28T22:41:55.898Z",
          "updatedAt": "2026-11-28T22:41:56.152Z"
        },
        {
          "id": "whd_ce7182244ded4e842fea69b6e6363bc3",
          "eventId": "4b5bb8d9-fdce-4a53-8c8d-5cb715d31e36",
          "event": "assessmentCompleted",
          "url": "https://hooks.example.com/hiring",
          "status": "succeeded",
          "attempts": 1,
          "attemptLog": [
            {
              "at": "2026-11-28T22:41:55.775Z",
              "responseStatus": 204,
              "durationMs": 19,
              "error": null
            }
          ],
          "lastResponseStatus": 204,
          "lastError": null,
          "createdAt": "2026-11-28T22:41:55.750Z",
          "updatedAt": "2026-11-28T22:41:55.775Z"
        }
      ],
      "meta": {
        "nextCursor": "-bpLdLCPSGu-CypexAQOFoJlHJ0eNcoY127Jl64hbrt7InQiOiIyMDI2LTExLTI4VDIyOjQxOjU1Ljc1MFoiLCJzIjoiNiIsImtpbmQiOiJ3ZWJob29rLWRlbGl2ZXJpZXMiLCJmaWx0ZXJzIjoiUkJOdm8xV3paNG9SUnEwVzktaGtucCIsInNjb3BlIjoiTEJ6cXI5RG40VlUzbUtrNm5STEtfMyJ9"
      }
    },
    "resendWebhookDelivery": {
      "data": {
        "id": "whd_48fd78c093b34dbfb68128ac5fe99df3"
      }
    },
    "recoverWebhookDeliveries": {
      "data": {
        "count": 7
      }
    },
    "readStream": {
      "data": [
        {
          "id": "784a5f21-7c70-4216-adfa-9fffa34cb429",
          "streamId": "candidate-cand_AFamwtO9f7HJTWZZ",
          "revision": 0,
          "position": "14",
          "type": "CandidateCreated",
          "data": {
            "mode": "live",
            "email": "ann.lee@example.com",
            "surname": "Lee",
            "createdAt": "2026-11-28T22:41:55.066Z",
            "firstName": "Ann",
            "candidateId": "cand_AFamwtO9f7HJTWZZ",
            "workspaceId": "ws_rsKKoAGpxJo0g8i8"
          },
          "metadata": {
            "time": "2026-11-28T22:41:55.066Z",
            "actor": "internal",
            "requestId": "4860ec76-deea-49cd-9cef-18ca70c03f09",
            "causationId": null,
            "correlationId": "4860ec76-deea-49cd-9cef-18ca70c03f09"
          },
          "recordedAt": "2026-11-28T22:41:55.071Z"
        },
        {
          "id": "eadbbf5b-60c3-44cb-8eea-dbe2de23af5f",
          "streamId": "candidate-cand_AFamwtO9f7HJTWZZ",
          "revision": 1,
          "position": "15",
          "type": "CandidateRegistered",
          "data": {
            "mode": "live",
            "tests": [
              {
                "name": "Numerical Reasoning",
                "slug": "numerical-reasoning",
                "type": "library"
              },
              {
                "name": "Verbal Reasoning",
                "slug": "verbal-reasoning",
                "type": "library"
              },
              {
                "name": "Support desk scenarios",
                "slug": "custom-krgbmuin",
                "type": "custom"
              }
            ],
            "candidateId": "cand_AFamwtO9f7HJTWZZ",
            "workspaceId": "ws_rsKKoAGpxJo0g8i8",
            "assessmentId": "asm_X9KYjKSaUHjYBsVo",
            "invitationId": "inv_fRMEBs1ZOn5O6gaS",
            "registeredAt": "2026-11-28T22:41:55.066Z",
            "assessmentName": "Customer support, spring intake"
          },
          "metadata": {
            "time": "2026-11-28T22:41:55.066Z",
            "actor": "internal",
            "requestId": "4860ec76-deea-49cd-9cef-18ca70c03f09",
            "causationId": null,
            "correlationId": "4860ec76-deea-49cd-9cef-18ca70c03f09"
          },
          "recordedAt": "2026-11-28T22:41:55.071Z"
        }
      ]
    },
    "sealLog": {
      "data": {
        "sequence": 1,
        "afterPosition": null,
        "toPosition": "32",
        "eventCount": 32,
        "eventsDigest": "b4a1e35a262fbaa1f40f6288aed9b0635fbe99bf5463169d77e44ce994590ac4",
        "previousSignature": null,
        "link": "2a81695566b5bc58ec07de9c507ecf526ebe4f9a54f7efb2426cfc129ceeb597",
        "sealedAt": "2026-11-28T22:41:56.484Z",
        "publicKey": "FgPIy0FR3H9c9wrtSgDryz5PsNpTQQ6y8NKQ75mBq0U",
        "signature": "0O60ld9RDlVjW1vbPOk0AOa6kuv4Z0qCMwhyO5tdIKW8jdy8NEodRoKbsrYrMSt374Ow4cLFYCEbQyHhpkOmBw"
      }
    },
    "getLatestSeal": {
      "data": {
        "link": "2a81695566b5bc58ec07de9c507ecf526ebe4f9a54f7efb2426cfc129ceeb597",
        "sealedAt": "2026-11-28T22:41:56.484Z",
        "sequence": 1,
        "publicKey": "FgPIy0FR3H9c9wrtSgDryz5PsNpTQQ6y8NKQ75mBq0U",
        "signature": "0O60ld9RDlVjW1vbPOk0AOa6kuv4Z0qCMwhyO5tdIKW8jdy8NEodRoKbsrYrMSt374Ow4cLFYCEbQyHhpkOmBw",
        "eventCount": 32,
        "toPosition": "32",
        "eventsDigest": "b4a1e35a262fbaa1f40f6288aed9b0635fbe99bf5463169d77e44ce994590ac4",
        "afterPosition": null,
        "previousSignature": null
      }
    },
    "candidateAsOf": {
      "data": {
        "id": "cand_AFamwtO9f7HJTWZZ",
        "email": "ann.lee@example.com",
        "firstName": "Ann",
        "surname": "Lee",
        "createdAt": "2026-11-28T22:41:55.066Z",
        "updatedAt": "2026-11-28T22:41:55.773Z",
        "reportUrl": "https://app.example.com/candidates/cand_AFamwtO9f7HJTWZZ/report",
        "assessments": [
          {
            "id": "asm_X9KYjKSaUHjYBsVo",
            "name": "Customer support, spring intake",
            "status": "completed",
            "completedAt": "2026-11-28T22:41:55.656Z",
            "unlocked": false,
            "results": [
              {
                "id": "res_r3qR45zzA78C2Ow1",
                "testSlug": "numerical-reasoning",
                "testName": "Numerical Reasoning",
                "testType": "library",
                "completedAt": "2026-11-28T22:41:55.413Z",
                "unlocked": true,
                "unlockedAt": "2026-11-28T22:41:55.773Z",
                "scorePercentage": 82.5,
                "speedCompleted": 1260,
                "questionsAnswered": 24,
                "questionsCorrect": 20,
                "questionsIncorrect": 4,
                "questionsTotal": 24,
                "result": "pass",
                "scores": null
              },
              {
                "id": "res_6mxxW6CxP6EhxVYs",
                "testSlug": "verbal-reasoning",
                "testName": "Verbal Reasoning",
                "testType": "library",
                "completedAt": "2026-11-28T22:41:55.589Z",
                "unlocked": false,
                "unlockedAt": null,
                "scorePercentage": null,
                "speedCompleted": null,
                "questionsAnswered": null,
                "questionsCorrect": null,
                "questionsIncorrect": null,
                "questionsTotal": null,
                "result": null,
                "scores": null
              },
              {
                "id": "res_6eCjIbZUpSPgYmiE",
                "testSlug": "custom-krgbmuin",
                "testName": "Support desk scenarios",
                "testType": "custom",
                "completedAt": "2026-11-28T22:41:55.656Z",
                "unlocked": false,
                "unlockedAt": null,
                "scorePercentage": null,
                "speedCompleted": null,
                "questionsAnswered": null,
                "questionsCorrect": null,
                "questionsIncorrect": null,
                "questionsTotal": null,
                "result": null,
                "scores": null
              }
            ]
          }
        ]
      }
    },
    "assessmentAsOf": {
      "data": {
        "id": "asm_X9KYjKSaUHjYBsVo",
        "name": "Customer support, spring intake",
        "status": "active",
        "createdAt": "2026-11-28T22:41:54.791Z",
        "deadline": null,
        "tests": [
          {
            "slug": "numerical-reasoning",
            "name": "Numerical Reasoning",
            "type": "library"
          },
          {
            "slug": "verbal-reasoning",
            "name": "Verbal Reasoning",
            "type": "library"
          },
          {
            "slug": "custom-krgbmuin",
            "name": "Support desk scenarios",
            "type": "custom"
          }
        ],
        "candidateCount": 1,
        "inviteUrl": "https://app.example.com/join/asm_X9KYjKSaUHjYBsVo/R1A5cPEM7-GSNUcpAU0H9LbAoafM9IB_"
      }
    },
    "closeAssessment": {
      "data": {
        "id": "asm_X9KYjKSaUHjYBsVo",
        "name": "Customer support, spring intake",
        "status": "archived",
        "createdAt": "2026-11-28T22:41:54.791Z",
        "deadline": null,
        "tests": [
          {
            "slug": "numerical-reasoning",
            "name": "Numerical Reasoning",
            "type": "library"
          },
          {
            "slug": "verbal-reasoning",
            "name": "Verbal Reasoning",
            "type": "library"
          },
          {
            "slug": "custom-krgbmuin",
            "name": "Support desk scenarios",
            "type": "custom"
          }
        ],
        "candidateCount": 1,
        "inviteUrl": "https://app.example.com/join/asm_X9KYjKSaUHjYBsVo/R1A5cPEM7-GSNUcpAU0H9LbAoafM9IB_"
      }
    },
    "advanceClock": {
      "data": {
        "now": "2026-11-28T23:41:56.508Z"
      }
    },
    "getHealth": {
      "data": {
        "status": "ok",
        "version": "1.0.0",
        "apiVersion": "1.2.0",
        "eventStore": {
          "headPosition": "34"
        },
        "readModels": {
          "workspaces": "34",
          "api-keys": "34",
          "assessments": "34",
          "candidates": "34",
          "results": "34",
          "completions": "34",
          "billing": "34",
          "invitations": "34",
          "events": "34"
        },
        "redis": "ok",
        "queues": {
          "webhooks": {
            "waiting": 0,
            "active": 0,
            "delayed": 0,
            "failed": 0
          },
          "email": {
            "waiting": 0,
            "active": 0,
            "delayed": 0,
            "failed": 0
          },
          "messaging-maintenance": {
            "waiting": 0,
            "active": 0,
            "delayed": 1,
            "failed": 0
          }
        }
      }
    }
  },
  "requests": {
    "createWorkspace": {
      "name": "Acme Recruiting",
      "freeAllowance": 0
    },
    "issueApiKey": {
      "mode": "sandbox"
    },
    "saveWebhook": {
      "url": "https://hooks.example.com/hiring",
      "events": [
        "candidateCreated",
        "assessmentStarted",
        "testCompleted",
        "assessmentCompleted",
        "resultUnlocked"
      ]
    },
    "createCustomTest": {
      "name": "Support desk scenarios",
      "minutes": 20,
      "questionCount": 12
    },
    "addTestToAssessment": {
      "slug": "custom-krgbmuin"
    },
    "registerCandidate": {
      "invitationUrl": "https://app.example.com/invitations/asm_X9KYjKSaUHjYBsVo/-n4oU2EA5MpGRNXT4j89hOJDEpEdHlPA"
    },
    "completeTest": {
      "scorePercentage": 82.5,
      "speedCompleted": 1260,
      "questionsAnswered": 24,
      "questionsCorrect": 20,
      "questionsIncorrect": 4,
      "questionsTotal": 24,
      "result": "pass"
    },
    "recoverWebhookDeliveries": {
      "since": "2026-11-28T22:41:54.791Z"
    },
    "advanceClock": {
      "advanceSeconds": 3600
    }
  },
  "parameters": {
    "workspaceId": "ws_rsKKoAGpxJo0g8i8",
    "apiKeyId": "key_r7U8clxGHE6bRVNo",
    "assessmentId": "asm_X9KYjKSaUHjYBsVo",
    "candidateId": "cand_AFamwtO9f7HJTWZZ",
    "slug": "numerical-reasoning",
    "resultId": "res_r3qR45zzA78C2Ow1",
    "deliveryId": "whd_450987c9e42f88c961e4bb1fc178cd3b",
    "streamId": "candidate-cand_AFamwtO9f7HJTWZZ"
  }
};
